package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.leasesync.lease.StoreException;
import org.leasesync.store.Database;
import org.leasesync.store.h2.UnacknowledgedWrite.Chunk;
import org.leasesync.store.h2.UnacknowledgedWrite.Named;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a local database file before leasesync opens it for writing, without writing anything.
 *
 * <p>Why: opened for writing, H2 "repairs" a damaged file on its own. It falls back to the newest
 * chunk it can read — an older state, or an empty database when nothing is readable, which the
 * schema migration then silently fills with empty tables — and writes that back over the file. A
 * user would lose their unsent edits without a word. So the file is read first, and a file that is
 * not intact is reported and left exactly as it is.
 *
 * <p>The check, done only while no process has the file open (H2's file lock tells):
 * <ol>
 *   <li>H2's store opens it read-only; at the same time the file itself is read: a header with a
 *       valid checksum is there (H2 keeps two copies), the file reaches the block that header names,
 *       the version H2 opened is the newest one any
 *       header or complete chunk records (if it is older, H2 fell back past data it could not
 *       read) — unless the only newer thing is one chunk whose commit never returned: the process
 *       died between writing it and the store header that names it ({@link UnacknowledgedWrite}),
 *       and the file ends with a complete chunk — or with the beginning of the newest one,
 *       a write that never finished (a crash or a full disk while saving; nothing of it was
 *       acknowledged, so nothing is lost when H2 ignores it). Anything else at the end means the
 *       file was cut off or overwritten.</li>
 *   <li>H2 opens it read-only as a database, through {@link ReadOnlyFilePath}, and reads every row
 *       of every table, so damage in the schema or in any stored row's page is found now.</li>
 * </ol>
 * When the file is unchanged since leasesync last closed it cleanly ({@link CleanCloseMarker}: same
 * size, modification time and inode), step 2 is skipped and step 1 is bounded: no read-only open of
 * the store and no walk over every block, only the store headers, the chunk they name and the chunk
 * the file ends with ({@code endsAsClosed}; if any of that does not hold, the full step 1 runs). So
 * a start after a clean stop costs a few reads, whatever the number of rows or the size of the
 * file; after a crash or any change from outside, both full steps run.
 * A file another process has open is not checked (that process opened it; this one will talk to
 * it). H2 keeps no checksum of row contents, so bytes overwritten inside a stored value can go
 * unnoticed; bytes in space H2 no longer uses are harmless and are not reported.
 *
 * <p>Stateless and thread-safe. Blocks on file I/O.
 */
public final class DatabaseFileCheck {

    private static final Logger log = LoggerFactory.getLogger(DatabaseFileCheck.class);
    private static final int BLOCK = 4096;
    private static final int FOOTER = 128;
    private static final int CHUNK_HEADER = 1024;

    /** What the check found, when the file is not damaged. */
    public enum Result {
        /** The file is intact. */
        INTACT,
        /** Another process has the file open; it was not checked. */
        IN_USE
    }

    private DatabaseFileCheck() {}

    /**
     * @param file an existing {@code leasesync.mv.db}
     * @return whether it was found intact or is in use by another process
     * @throws StoreException naming the file, saying it is damaged (or unreadable) and what to do;
     *     the file is unchanged
     */
    public static Result check(Path file) {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw unreadable(file, e);
        }
        if (size == 0) {
            if (beingCreated(file)) {
                return Result.IN_USE;
            }
            throw damaged(file, "it is empty (0 bytes), probably truncated");
        }
        if (CleanCloseMarker.matches(file) && endsAsClosed(file)) {
            log.debug(
                    "{} is unchanged since leasesync closed it cleanly: neither re-opened read-only nor read again",
                    file);
            return Result.INTACT;
        }
        Optional<String> problem;
        try {
            problem = checkStore(file);
        } catch (InUse e) {
            return Result.IN_USE;
        }
        if (problem.isPresent()) {
            log.info("{} is damaged: {}", file, problem.get());
            throw damaged(file, problem.get());
        }
        if (CleanCloseMarker.matches(file)) {
            log.debug("{} is unchanged since leasesync closed it cleanly: its rows are not read again", file);
            return Result.INTACT;
        }
        return StoredRowsCheck.readEveryRow(file) ? Result.INTACT : Result.IN_USE;
    }

    /**
     * An empty file is also what another process sees for an instant while H2 creates the database
     * (between creating the file and locking it). It is being created if, within about two seconds,
     * it grows or another process locks it.
     */
    private static boolean beingCreated(Path file) {
        for (int i = 0; i < 8; i++) {
            try {
                if (Files.size(file) > 0 || lockedByAnotherProcess(file)) {
                    return true;
                }
                Thread.sleep(250);
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    private static boolean lockedByAnotherProcess(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            java.nio.channels.FileLock lock = ch.tryLock(0, Long.MAX_VALUE, true);
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return true; // this process has it open
        }
    }

    /**
     * The bounded step 1 for a file unchanged since a clean close ({@link CleanCloseMarker} matched): no
     * other process has it open, the newest store header with a valid checksum names a block inside the
     * file where the chunk it names begins and, at that chunk's end, its footer with a valid checksum,
     * and the file ends with a chunk footer with a valid checksum whose chunk header is where it says.
     * The pages inside the newest chunk are not read here: H2's own open reads its metadata next, and
     * damage it finds there is reported as damage ({@link Database#openFile}). A handful of reads,
     * whatever the file's size (the full step 1 opens the store read-only and reads the footer slot of
     * every block: ~100,000 reads for 400 MB). False —
     * never "damaged" — when any of it does not hold: the caller then runs the full check.
     */
    private static boolean endsAsClosed(Path file) {
        try {
            if (lockedByAnotherProcess(file)) {
                return false;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = ch.size();
                if (size < 3L * BLOCK || size % BLOCK != 0) {
                    return false;
                }
                Map<String, String> h0 = checksummed(read(ch, 0, BLOCK));
                Map<String, String> h1 = checksummed(read(ch, BLOCK, BLOCK));
                if (h0 == null && h1 == null) {
                    return false;
                }
                Map<String, String> newest =
                        h1 == null || (h0 != null && hex(h0, "version") >= hex(h1, "version")) ? h0 : h1;
                long headerBlock = hex(newest, "block");
                if (headerBlock < 2 || headerBlock * BLOCK >= size) {
                    return false;
                }
                Map<String, String> named = chunkHeader(read(ch, headerBlock * BLOCK, CHUNK_HEADER));
                if (named == null || hex(named, "chunk") != hex(newest, "chunk")) {
                    return false;
                }
                long namedEnd = (headerBlock + hex(named, "len")) * BLOCK; // the named chunk is whole: its footer
                Map<String, String> namedFooter = namedEnd > headerBlock * BLOCK && namedEnd <= size
                        ? checksummed(read(ch, namedEnd - FOOTER, FOOTER))
                        : null;
                if (namedFooter == null
                        || hex(namedFooter, "chunk") != hex(named, "chunk")
                        || hex(namedFooter, "len") != hex(named, "len")
                        || hex(namedFooter, "version") != hex(named, "version")) {
                    return false;
                }
                Map<String, String> footer = checksummed(read(ch, size - FOOTER, FOOTER));
                if (footer == null) {
                    return false;
                }
                long start = size / BLOCK - hex(footer, "len");
                Map<String, String> last = start >= 2 ? chunkHeader(read(ch, start * BLOCK, CHUNK_HEADER)) : null;
                return last != null && hex(last, "chunk") == hex(footer, "chunk");
            }
        } catch (IOException | RuntimeException e) {
            log.debug("the bounded check of {} did not pass; the full check runs", file, e);
            return false;
        }
    }

    /** Step 1: the store's structure. Empty when intact. */
    private static Optional<String> checkStore(Path file) {
        MVStore store;
        try {
            store = new MVStore.Builder().fileName(file.toString()).readOnly().open();
        } catch (MVStoreException e) {
            if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
                throw new InUse();
            }
            if (rootCause(e) instanceof AccessDeniedException ade) {
                throw unreadable(file, ade);
            }
            log.info("read-only open of {} failed", file, e);
            return Optional.of("H2 cannot read its structure (not a leasesync database, or damaged)");
        } catch (java.nio.channels.OverlappingFileLockException e) {
            throw new InUse(); // this process has it open already
        } catch (RuntimeException e) {
            log.info("read-only open of {} failed", file, e);
            return Optional.of("H2 cannot read its structure (not a leasesync database, or damaged)");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return checkLayout(ch, store.getCurrentVersion());
        } catch (IOException e) {
            throw unreadable(file, e);
        } finally {
            store.close();
        }
    }

    private static Optional<String> checkLayout(FileChannel ch, long openedVersion) throws IOException {
        long size = ch.size();
        if (size < 2L * BLOCK) {
            return Optional.of("it is only " + size + " bytes long; it was probably truncated");
        }
        Map<String, String> h0 = checksummed(read(ch, 0, BLOCK));
        Map<String, String> h1 = checksummed(read(ch, BLOCK, BLOCK));
        if (h0 == null && h1 == null) {
            return Optional.of("its header is damaged");
        }
        long headerVersion = Math.max(h0 == null ? -1 : hex(h0, "version"), h1 == null ? -1 : hex(h1, "version"));
        // The header names the block of the newest chunk it knows; a file that ends before that block
        // was cut off, even when it happens to end at the footer of an older chunk in freed space
        // (H2 then opens an older copy and the end-of-file check below sees a clean end).
        long headerBlock = Math.max(h0 == null ? -1 : hex(h0, "block"), h1 == null ? -1 : hex(h1, "block"));
        if (headerBlock >= 2 && headerBlock * BLOCK >= size) {
            return Optional.of("its end is cut off (its header names block " + headerBlock + " of a " + size / BLOCK
                    + "-block file); it was probably truncated");
        }
        // Every complete chunk: a footer with a valid checksum whose chunk header is where it says.
        List<Chunk> complete = new ArrayList<>();
        long newestComplete = -1;
        long endOfLastComplete = 2; // in blocks; the two header blocks come first
        for (long block = 3; block * BLOCK <= size; block++) {
            Map<String, String> footer = checksummed(read(ch, block * BLOCK - FOOTER, FOOTER));
            if (footer == null) {
                continue;
            }
            long start = block - hex(footer, "len");
            Map<String, String> header = start >= 2 ? chunkHeader(read(ch, start * BLOCK, CHUNK_HEADER)) : null;
            if (header != null && hex(header, "chunk") == hex(footer, "chunk")) {
                complete.add(
                        new Chunk(hex(footer, "chunk"), hex(footer, "version"), start, block, hex(header, "next")));
                newestComplete = Math.max(newestComplete, hex(footer, "version"));
                endOfLastComplete = Math.max(endOfLastComplete, block);
            }
        }
        long newest = Math.max(newestComplete, headerVersion);
        List<Named> named = new ArrayList<>();
        for (Map<String, String> h : Arrays.asList(h0, h1)) {
            if (h != null) {
                named.add(new Named(hex(h, "chunk"), hex(h, "block")));
            }
        }
        boolean unacknowledged =
                openedVersion < newest && UnacknowledgedWrite.explains(complete, openedVersion, headerVersion, named);
        if (unacknowledged) {
            log.info(
                    "H2 opens version {} of {} and ignores version {}: a write whose commit never returned (the "
                            + "process ended before H2 wrote the store header naming it)",
                    openedVersion,
                    ch,
                    newest);
        } else if (openedVersion < newest) {
            log.info("H2 would open version {} of {} while version {} was saved", openedVersion, ch, newest);
            return Optional.of("the newest data in it cannot be read (H2 would fall back to an older state and lose "
                    + "what was saved since)");
        }
        if (checksummed(read(ch, size - FOOTER, FOOTER)) == null) {
            // After the last complete chunk there may be the start of one write that never finished (a crash or
            // a full disk while saving): the newest chunk, begun but not acknowledged, which H2 rightly ignores.
            // Anything else there means the file was cut off or overwritten.
            Map<String, String> unfinished = endOfLastComplete * BLOCK < size
                    ? chunkHeader(read(ch, endOfLastComplete * BLOCK, CHUNK_HEADER))
                    : null;
            if (unfinished == null || hex(unfinished, "version") <= newestComplete) {
                return Optional.of("its end is cut off or overwritten; it was probably truncated");
            }
        }
        return Optional.empty();
    }

    /** Parses a chunk header ("chunk:..,block:..,len:..,...,version:..", up to a newline), or null. */
    public static Map<String, String> chunkHeader(byte[] bytes) {
        String s = new String(bytes, StandardCharsets.ISO_8859_1);
        int nl = s.indexOf('\n');
        if (nl <= 0 || !s.startsWith("chunk:")) {
            return null;
        }
        try {
            Map<String, String> m = DataUtils.parseMap(s.substring(0, nl));
            return m.containsKey("version") && m.containsKey("len") ? m : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    static StoreException damaged(Path file, String what) {
        return new StoreException("the local database " + file + " is damaged: " + what + ". leasesync did not open "
                + "it and changed nothing. Restore it from a backup, or move it aside (keep the copy: edits not yet "
                + "pushed are only in it) to start with an empty one; the next sync downloads your data again.");
    }

    static StoreException unreadable(Path file, IOException e) {
        return new StoreException(
                "cannot read the local database " + file + ": " + e
                        + ". Check its permissions, or choose another --data-dir.",
                e);
    }

    /**
     * Parses one of H2's "key:value,...,fletcher:checksum" blocks (store header, chunk footer).
     *
     * @return the map, or null when it is not one or its checksum does not match
     */
    public static Map<String, String> checksummed(byte[] bytes) {
        int start = 0;
        int end = bytes.length;
        while (start < end && (bytes[start] & 0xff) <= ' ') {
            start++;
        }
        while (end > start && (bytes[end - 1] & 0xff) <= ' ') {
            end--;
        }
        String s = new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
        int f = s.lastIndexOf(",fletcher:");
        if (f < 0) {
            return null;
        }
        try {
            int expected = (int) Long.parseLong(s.substring(f + ",fletcher:".length()), 16);
            if (DataUtils.getFletcher32(bytes, start, f) != expected) {
                return null;
            }
            return DataUtils.parseMap(s.substring(0, f));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static long hex(Map<String, String> m, String key) {
        String v = m.get(key);
        try {
            return v == null ? -1 : Long.parseLong(v, 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static byte[] read(FileChannel ch, long pos, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(len);
        while (b.hasRemaining()) {
            if (ch.read(b, pos + b.position()) < 0) {
                break;
            }
        }
        return b.array();
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /** The file is open in another process (or this one): it is not checked. */
    private static final class InUse extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InUse() {
            super(null, null, false, false);
        }
    }
}
