package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.leasesync.lease.StoreException;

/**
 * Where the local database lives in a data directory, and how the directory is made: the file
 * {@code leasesync.mv.db} (H2 adds {@code .mv.db} to {@link #FILE_BASE_NAME}), H2's lock file beside
 * it, and the JDBC URL that opens it.
 *
 * <p>Stateless and thread-safe; the methods that touch the file system block on it.
 */
public final class DataDirectory {

    /** The database file name inside the data directory, without H2's {@code .mv.db}. */
    public static final String FILE_BASE_NAME = "leasesync";

    private DataDirectory() {
    }

    /** The database file of {@code dataDir} ({@code leasesync.mv.db}); it may not exist yet. */
    public static Path databaseFile(Path dataDir) {
        return dataDir.resolve(FILE_BASE_NAME + ".mv.db");
    }

    /** H2's lock file beside the database file, present while a process has it open. */
    public static Path lockFile(Path dataDir) {
        return dataDir.resolve(FILE_BASE_NAME + ".lock.db");
    }

    /** Whether {@code dataDir} holds a local database file yet (read-only commands create none). */
    public static boolean existsIn(Path dataDir) {
        return Files.exists(databaseFile(dataDir));
    }

    /**
     * The JDBC URL of the database file in {@code dataDir}, as {@code Database.openFile} opens it:
     * H2's automatic mixed mode, a 10 s lock timeout, and every commit written to the file at once
     * ({@code WRITE_DELAY=0}). The benchmarks open their contenders on this same URL. (H2 closes it
     * from its own shutdown hook, and refuses {@code DB_CLOSE_ON_EXIT=FALSE} with {@code AUTO_SERVER};
     * so a clean stop on SIGTERM happens before the JVM shuts down: {@code client.StopSignals}.)
     */
    public static String fileUrl(Path dataDir) {
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().normalize().resolve(FILE_BASE_NAME)
                + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;LOCK_TIMEOUT=10000;WRITE_DELAY=0";
    }

    /**
     * Makes sure {@code dataDir} is a directory, creating it (and its parents) with owner-only
     * permissions where the file system supports them.
     *
     * @return the absolute, normalised directory
     * @throws StoreException naming the path and the fix when it is a file or cannot be created
     */
    public static Path prepare(Path dataDir) {
        Path dir = dataDir.toAbsolutePath().normalize();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new StoreException("the data directory " + dir + " is a file, not a directory; choose another one "
                    + "with --data-dir or LEASESYNC_DATA_DIR");
        }
        createPrivateDirectory(dir);
        return dir;
    }

    /** Creates {@code dir} (and parents) with owner-only permissions where the file system supports it. */
    public static void createPrivateDirectory(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                return;
            }
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
        } catch (IOException e) {
            throw new StoreException("cannot create the data directory " + dir + ": " + e
                    + ". Choose another one with --data-dir or LEASESYNC_DATA_DIR.", e);
        }
    }
}
