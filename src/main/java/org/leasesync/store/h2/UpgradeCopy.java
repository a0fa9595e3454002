package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy of an H2 database file taken before a schema upgrade migrates it, put back when the
 * migration did not finish, removed once it did.
 *
 * <p>Why: H2 commits every DDL statement on its own, so a migration cut short by {@code kill -9} or a
 * power cut leaves half of it applied, and Flyway then refuses the database on every start (an index
 * that already exists, a failed history row). The copy is a plain file copy, taken while no process
 * has the file open ({@link UpgradeGuard} exclusive, and the operating system's lock on the file free),
 * so it is exactly the file before the upgrade.
 *
 * <p>The rule:
 * <ol>
 *   <li>{@link #take()}: the file is copied to {@code <file>.upgrade-copy.tmp}, forced to disk, then
 *       renamed to {@code <file>{@value #SUFFIX}}. The copy exists under its name only when complete,
 *       so its presence is the marker "an upgrade started from this copy".</li>
 *   <li>The migration runs on the file.</li>
 *   <li>{@link #discard()}: the copy is removed, before anything else is written to the migrated file
 *       (the upgrading process still holds the guard exclusive, so no other process is connected).</li>
 * </ol>
 * A start that finds the copy ({@link #present()}) knows the upgrade did not reach step 3, so nothing
 * was written after the copy was taken: {@link #restore()} renames it over the file, and the upgrade
 * runs again from the start. A kill during the restore leaves either the copy or the restored file, and
 * the next start restores again or upgrades. Never the other way round: the copy is never put back
 * once it was discarded.
 *
 * <p>Not thread-safe on its own: only under {@link UpgradeGuard} exclusive (or, for the server, its
 * data directory lock). Blocks on file I/O.
 */
public final class UpgradeCopy {

    /** Added to the database file's name for its copy. */
    public static final String SUFFIX = ".upgrade-copy";
    /** Free space kept beyond the copy's size, so that the migration itself still has room. */
    static final long SPARE_BYTES = 8L * 1024 * 1024;

    private static final Logger log = LoggerFactory.getLogger(UpgradeCopy.class);

    private final Path file;
    private final Path copy;

    private UpgradeCopy(Path file) {
        this.file = file.toAbsolutePath().normalize();
        this.copy = this.file.resolveSibling(this.file.getFileName() + SUFFIX);
    }

    /** The copy of {@code file} (an H2 {@code .mv.db}); nothing is read or written. */
    public static UpgradeCopy of(Path file) {
        return new UpgradeCopy(file);
    }

    /** Where the copy is kept. */
    public Path path() {
        return copy;
    }

    /** Whether a copy is there: an upgrade started from it and did not finish. */
    public boolean present() {
        return Files.exists(copy);
    }

    /**
     * Copies the file (closed by every process). Checks the free space first: the copy needs the
     * file's size plus {@link #SPARE_BYTES}.
     *
     * @throws StoreException naming the file and what to do, when there is not enough space or the
     *     copy cannot be written; the database file is unchanged and no copy is left
     */
    public void take() {
        Path tmp = copy.resolveSibling(copy.getFileName() + ".tmp");
        long size = 0;
        try {
            size = Files.size(file);
            long free = Files.getFileStore(file.getParent()).getUsableSpace();
            if (free < size + SPARE_BYTES) {
                throw noSpace(size, free, null);
            }
            Files.deleteIfExists(tmp);
            OwnerOnlyFiles.file(tmp);
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
                    FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                long done = 0;
                while (done < size) {
                    done += in.transferTo(done, size - done, out);
                }
                out.force(true);
            }
            move(tmp, copy);
            log.info("{}: copy taken before upgrading its schema ({} bytes, {})", file, size, copy.getFileName());
        } catch (IOException e) {
            deleteQuietly(tmp);
            if (String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("no space left")) {
                throw noSpace(size, -1, e);
            }
            throw new StoreException(
                    "cannot take a copy of the local database " + file + " before upgrading it (" + e.getMessage()
                            + ") — it was not upgraded and nothing was changed",
                    e);
        } catch (StoreException e) {
            deleteQuietly(tmp);
            throw e;
        }
    }

    private StoreException noSpace(long size, long free, IOException cause) {
        String needs = "about " + mib(size + SPARE_BYTES) + " MiB free in " + file.getParent()
                + (free >= 0 ? " (" + mib(free) + " MiB are)" : "");
        return new StoreException(
                "not enough disk space to upgrade the local database " + file + ": a copy of it is "
                        + "taken first, and that needs " + needs
                        + ". It was not upgraded and nothing was changed: free "
                        + "some space, then start leasesync again.",
                cause);
    }

    private static long mib(long bytes) {
        return (bytes + 1024 * 1024 - 1) / (1024 * 1024);
    }

    /**
     * Puts the copy back over the file (closed by every process) and says so in the log.
     *
     * @throws StoreException naming both files when it cannot be renamed; both are left as they are
     */
    public void restore() {
        try {
            move(copy, file);
        } catch (IOException e) {
            throw new StoreException(
                    "an upgrade of the local database " + file + " did not finish, and the copy "
                            + "taken before it (" + copy + ") cannot be put back: " + e.getMessage()
                            + ". Both files are "
                            + "kept; move the copy over the database file by hand, then start leasesync again.",
                    e);
        }
        log.warn(
                "{}: an upgrade of its schema did not finish (the process was ended while migrating); the copy "
                        + "taken before it was put back, and the upgrade runs again",
                file);
    }

    /**
     * Removes the copy after the upgrade finished.
     *
     * @throws StoreException when it cannot be removed: a later start would otherwise put it back over
     *     what is written from now on
     */
    public void discard() {
        try {
            Files.deleteIfExists(copy);
        } catch (IOException e) {
            throw new StoreException(
                    "the local database " + file + " was upgraded, but the copy taken before (" + copy
                            + ") cannot be removed: " + e.getMessage() + ". Remove it, then start leasesync again.",
                    e);
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel dir = FileChannel.open(to.getParent(), StandardOpenOption.READ)) {
            dir.force(true); // the rename itself survives a power cut
        } catch (IOException e) {
            log.debug("could not force the directory {}: {}", to.getParent(), e.toString());
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            log.debug("could not delete {}: {}", p, e.toString());
        }
    }
}
