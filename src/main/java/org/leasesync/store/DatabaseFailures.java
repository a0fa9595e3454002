package org.leasesync.store;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.leasesync.lease.StoreException;
import org.leasesync.store.h2.DataDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failure of the local database means for the user, said once, plainly, naming the
 * database: a write the disk refused (full, quota, file too large), a database H2 closed after
 * such a write, a damaged file, a file or server that cannot be opened. One per {@link Database}:
 * it remembers that a write was refused or the file found damaged, so that later failures say why
 * and the close does not record a clean close.
 *
 * <p>Thread-safe.
 */
final class DatabaseFailures {

    private static final Logger log = LoggerFactory.getLogger(DatabaseFailures.class);

    private final String description;
    /** Why H2 closed the database (a refused write), once that happened. */
    private volatile String closedBecause;
    /**
     * Set once a statement of this session found the file damaged or had a write refused: its close
     * then records no clean close, so the next start runs the full check.
     */
    private volatile boolean fileSuspect;

    DatabaseFailures(String description) {
        this.description = description;
    }

    /** Whether a statement of this session found the file damaged or had a write refused. */
    boolean fileSuspect() {
        return fileSuspect;
    }

    /**
     * The one place a failed statement becomes a {@link StoreException}. A write the disk refused
     * is said so plainly; H2 then closes the database, so later failures say why it is closed.
     *
     * @param what what was being done, e.g. "record the end of run r1"
     */
    StoreException statementFailed(String what, SQLException e) {
        // First: once H2 has closed the database after a refused write, every later call fails with an
        // error that still carries that write failure as its cause; "try again" would be wrong for it,
        // since only a new start opens the database again.
        String because = closedBecause;
        if (because != null && StoreFailures.isClosedDatabase(e)) {
            return new StoreException(
                    "could not " + what + " in " + description + ": the database was closed after "
                            + "an earlier write failed (" + because + "). Free some space, then start leasesync again.",
                    e);
        }
        Optional<String> writeFailure = StoreFailures.writeFailure(e);
        if (writeFailure.isPresent()) {
            fileSuspect = true;
            closedBecause = writeFailure.get();
            log.debug("could not {} in {}", what, description, e);
            return new StoreException(
                    "could not " + what + " in " + description + ": " + writeFailure.get()
                            + " — nothing of this step was saved; what was saved before is kept. Free some space and try "
                            + "again (restart leasesync if it keeps failing).",
                    e);
        }
        if (StoreFailures.isCorrupt(e)) {
            fileSuspect = true;
            return new StoreException(
                    "could not " + what + " in " + description + ": the file is damaged ("
                            + rootMessage(e)
                            + "). Stop leasesync, then restore the file from a backup or move it aside "
                            + "(keep the copy) to start with an empty one.",
                    e);
        }
        return new StoreException(
                "could not " + what + " in " + description + ": " + DataDirectory.withoutScheme(e.getMessage()), e);
    }

    /** Why a database could not be opened (or migrated), with what to do about it. */
    static String openFailed(SqlDialect dialect, String description, Throwable e) {
        if (dialect == SqlDialect.POSTGRESQL) {
            return "cannot open the PostgreSQL database " + description + ": " + rootMessage(e) + ". Check the URL,"
                    + " the user and password, and that the server is running and reachable.";
        }
        Optional<String> writeFailure = StoreFailures.writeFailure(e);
        if (writeFailure.isPresent()) {
            return "cannot open the local database " + description + ": " + writeFailure.get() + ". leasesync needs "
                    + "some free space to open it; nothing was changed. Free some space and try again.";
        }
        String reason = rootMessage(e);
        String hint;
        String lower = reason.toLowerCase(Locale.ROOT);
        if (lower.contains("readonly") || lower.contains("read-only") || lower.contains("read only")) {
            return "cannot open the local database " + description + ": the file or its directory is read-only. "
                    + "leasesync needs to write there; check the permissions, or choose another --data-dir.";
        }
        if (lower.contains("locked") || lower.contains("in use") || lower.contains("timeout")) {
            hint = "Another process holds the database and does not answer; stop other leasesync processes "
                    + "using this data directory and try again.";
        } else if (StoreFailures.isDamagedOrForeignFile(e)
                || lower.contains("corrupt")
                || lower.contains("file is")
                || lower.contains("unsupported")
                || lower.contains("format")
                || lower.contains("eofexception")) {
            hint = "The file looks damaged or is not a leasesync database. It was left untouched; move it aside "
                    + "(keep a copy) to start with an empty one, or restore a backup.";
        } else if (lower.contains("permission") || lower.contains("access denied") || lower.contains("read-only")) {
            hint = "Check the permissions of the data directory.";
        } else {
            hint = "See the log for details.";
        }
        return "cannot open the local database " + description + ": " + reason + ". " + hint;
    }

    /** The innermost cause's message, first line only. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : DataDirectory.withoutScheme(t.getMessage());
        int nl = m.indexOf('\n');
        return (nl > 0 ? m.substring(0, nl) : m).trim();
    }
}
