package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.leasesync.files.NotYoursException;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.StoreException;

/**
 * Where the local database lives in a data directory, and how the directory is made: the file
 * {@code leasesync.mv.db} (H2 adds {@code .mv.db} to {@link #FILE_BASE_NAME}), H2's lock file beside
 * it, the JDBC URL that opens it, and the directory made (or tightened) owner-only with what
 * leasesync keeps in it.
 *
 * <p>Stateless and thread-safe; the methods that touch the file system block on it.
 */
public final class DataDirectory {

    /** The database file name inside the data directory, without H2's {@code .mv.db}. */
    public static final String FILE_BASE_NAME = "leasesync";

    private DataDirectory() {}

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
     * ({@code WRITE_DELAY=0}), on the file system that creates every H2 file owner-only
     * ({@link OwnerOnlyFilePath}, registered here so that whoever has the URL can open it). The
     * benchmarks open their contenders on this same URL. (H2 closes it from its own shutdown hook,
     * and refuses {@code DB_CLOSE_ON_EXIT=FALSE} with {@code AUTO_SERVER}; so a clean stop on SIGTERM
     * happens before the JVM shuts down: {@code client.StopSignals}.)
     */
    public static String fileUrl(Path dataDir) {
        OwnerOnlyFilePath.register();
        return "jdbc:h2:" + OwnerOnlyFilePath.SCHEME + ":"
                + dataDir.toAbsolutePath().normalize().resolve(FILE_BASE_NAME)
                + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;LOCK_TIMEOUT=10000;WRITE_DELAY=0";
    }

    /**
     * H2's message about a file of this database without the {@link OwnerOnlyFilePath} scheme in
     * its file names, for showing to a person.
     */
    public static String withoutScheme(String h2Message) {
        return h2Message == null ? null : h2Message.replace(OwnerOnlyFilePath.SCHEME + ":", "");
    }

    /**
     * Makes {@code dataDir} the owner-only directory leasesync keeps its files in: creates it (and
     * missing parents) with 0700, or — when it exists — checks that it is this account's and
     * tightens it and what leasesync keeps in it ({@link #KEPT}, {@link #KEPT_DIRECTORIES}) to 0700
     * and 0600.
     *
     * <p>Why tighten what exists: a directory the user made with {@code mkdir}, or one an earlier
     * version filled, is 0755 with 0644 files, so any account on the machine could read the records
     * and H2's lock file — whose key lets it connect to the database server this process starts for
     * the user's other processes, and write there as the user. Only leasesync's own entries are
     * changed: a data directory given with {@code --data-dir} may hold other things of the user's.
     *
     * @return the absolute, normalised directory
     * @throws StoreException naming the path and what to do when it is a file, belongs to another
     *     account (or holds an entry of leasesync's that does), or cannot be created or tightened
     */
    public static Path prepare(Path dataDir) {
        Path dir = dataDir.toAbsolutePath().normalize();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new StoreException("the data directory " + dir + " is a file, not a directory; choose another one "
                    + "with --data-dir or LEASESYNC_DATA_DIR");
        }
        createPrivateDirectory(dir);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, DataDirectory::kept)) {
            for (Path entry : entries) {
                OwnerOnlyFiles.tightenTree(entry);
            }
        } catch (NotYoursException e) {
            throw new StoreException(
                    e.path() + " in the data directory belongs to " + e.owner() + ", not to you ("
                            + e.you()
                            + "), so another account could have put it there. leasesync uses none of it: check "
                            + "what it is and remove it, or choose another data directory with --data-dir or "
                            + "LEASESYNC_DATA_DIR.",
                    e);
        } catch (IOException e) {
            throw new StoreException(
                    "cannot make the data directory " + dir + " private to you: " + e.getMessage()
                            + ". Choose another one with --data-dir or LEASESYNC_DATA_DIR.",
                    e);
        }
        return dir;
    }

    /**
     * Makes sure {@code dir} is a directory of this account that only it can reach: created (with
     * missing parents) 0700, or the existing one checked and tightened — itself, not what is in it
     * ({@link #prepare} does both).
     *
     * @throws StoreException naming the path and what to do when it belongs to another account, is
     *     a file, or cannot be created or tightened
     */
    public static void createPrivateDirectory(Path dir) {
        try {
            OwnerOnlyFiles.directory(dir);
        } catch (NotYoursException e) {
            throw new StoreException(
                    "the data directory " + e.path() + " belongs to " + e.owner() + ", not to you ("
                            + e.you()
                            + "); leasesync keeps your records and the key to its local database server there, "
                            + "so it uses only a directory of your own. Choose another one with --data-dir or "
                            + "LEASESYNC_DATA_DIR, or, if it should be yours, make it yours (chown -R " + e.you() + " "
                            + e.path() + ").",
                    e);
        } catch (IOException e) {
            throw new StoreException(
                    "cannot use the data directory " + dir + ": " + e.getMessage()
                            + ". Choose another one with --data-dir or LEASESYNC_DATA_DIR.",
                    e);
        }
    }

    /**
     * What leasesync keeps in a data directory, by the start of the name: the H2 files and their
     * markers ({@code leasesync.*}: database, lock, trace, lock owner, takeover guard, creation and
     * clean-close markers, set-aside {@code *.unfinished} files), the window's {@code settings.json}
     * (and unreadable ones moved aside), the embedded server's {@code embedded-server.json} and the
     * signed-in accounts' {@code accounts.json} (with its lock), with their temporary files
     * ({@code <name>.<random>.tmp}); and, by the whole name, the directories {@code logs/},
     * {@code embedded-server/} and {@code credentials/} (the token file, where no keyring answers).
     */
    static final List<String> KEPT =
            List.of(FILE_BASE_NAME + ".", "settings.json", "embedded-server.json", "accounts.json");

    static final List<String> KEPT_DIRECTORIES = List.of("logs", "embedded-server", "credentials");

    private static boolean kept(Path entry) {
        String name = entry.getFileName().toString();
        return KEPT_DIRECTORIES.contains(name) || KEPT.stream().anyMatch(name::startsWith);
    }
}
