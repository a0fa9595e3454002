package org.leasesync.store;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.h2.api.ErrorCode;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStoreException;

/**
 * Recognises what an H2 failure means for the user: a write the disk refused, a database H2 has
 * closed, a damaged file. Pure functions of the exception; thread-safe.
 */
final class StoreFailures {

    private StoreFailures() {}

    /**
     * When {@code e} comes from a write the file system refused, a plain description of why
     * ("the disk is full (No space left on device)", "writing to the disk failed (...)").
     */
    static Optional<String> writeFailure(Throwable e) {
        boolean writeFailed = false;
        String io = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof MVStoreException m && m.getErrorCode() == DataUtils.ERROR_WRITING_FAILED) {
                writeFailed = true;
            }
            String m = String.valueOf(t.getMessage());
            if (t instanceof IOException && t.getMessage() != null && io == null) {
                io = m;
            } else if (io == null && isDiskFull(m)) {
                io = "No space left on device";
            }
            if (m.contains("Writing to ") && m.contains(" failed")) {
                writeFailed = true; // an MVStore write failure, also as text (from another process's H2)
            }
        }
        if (io != null && isDiskFull(io)) {
            return Optional.of("the disk is full (" + io + ")");
        }
        if (writeFailed) {
            return Optional.of(
                    "writing to the disk failed" + (io == null ? "" : " (" + io + ")") + " — is the disk full?");
        }
        return Optional.empty();
    }

    private static boolean isDiskFull(String ioMessage) {
        String m = ioMessage.toLowerCase(Locale.ROOT);
        return m.contains("no space left")
                || m.contains("disk quota exceeded")
                || m.contains("file too large")
                || m.contains("not enough space");
    }

    /**
     * H2 has closed the database (after a fatal error, or on shutdown). The text is for an
     * exception that carries the message but not H2's code.
     */
    static boolean isClosedDatabase(SQLException e) {
        return e.getErrorCode() == ErrorCode.DATABASE_IS_CLOSED
                || e.getErrorCode() == ErrorCode.DATABASE_CALLED_AT_SHUTDOWN
                || String.valueOf(e.getMessage()).contains("has been closed");
    }

    /** H2 found the file damaged while reading it. */
    static boolean isCorrupt(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s && s.getErrorCode() == ErrorCode.FILE_CORRUPTED_1) {
                return true;
            }
            if (t instanceof MVStoreException m && m.getErrorCode() == DataUtils.ERROR_FILE_CORRUPT) {
                return true;
            }
        }
        return false;
    }

    /**
     * An H2 exception in {@code e}'s causes says the file is damaged or is no H2 file of a
     * version it reads.
     */
    static boolean isDamagedOrForeignFile(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s
                    && (s.getErrorCode() == ErrorCode.FILE_CORRUPTED_1
                            || s.getErrorCode() == ErrorCode.FILE_VERSION_ERROR_1)) {
                return true;
            }
        }
        return false;
    }
}
