package org.leasesync.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import org.leasesync.files.NotYoursException;
import org.leasesync.files.OwnerOnlyFiles;

/**
 * A server's data directory kept owner-only, whatever the umask and whether it existed: the
 * directory (and any parent this process creates for it) {@code 0700}, every file in it
 * {@code 0600} — the H2 database, its lock and trace files, {@code server.lock}. A directory that
 * belongs to another user is refused, since its owner could read everything the server writes.
 * The rules and their one implementation are the client's too ({@link OwnerOnlyFiles}); what is
 * the server's here is which directory, and what it says when it refuses one.
 *
 * <p>Stateless, thread-safe; every method blocks on the file system.
 */
public final class ServerDataDir {

    private ServerDataDir() {}

    /**
     * Creates {@code dir} if needed (0700, parents created here too), checks that it is this user's,
     * and makes it and its files owner-only.
     *
     * @throws IllegalStateException if it is not a directory or belongs to another user (the message
     *     says whose and what to do)
     * @throws UncheckedIOException if it cannot be created or its permissions cannot be set
     */
    public static void prepare(Path dir) {
        try {
            Path abs = OwnerOnlyFiles.directory(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(abs)) {
                for (Path f : files) {
                    if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                        OwnerOnlyFiles.tighten(f);
                    }
                }
            }
        } catch (NotYoursException e) {
            throw notYours(dir, e);
        } catch (NotDirectoryException e) {
            throw new IllegalStateException("the server data dir " + dir + " is not a directory", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the server data dir " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes every regular file directly in {@code dir} owner-only (files H2 made since the last look,
     * e.g. a trace file, get the umask's permissions). Never throws: it runs on the housekeeping
     * thread, and a file that vanished meanwhile (an H2 temporary file) or cannot be changed is still
     * inside the 0700 directory.
     *
     * @return true if a file was not owner-only (whether or not it could be changed)
     */
    public static boolean tightenFiles(Path dir) {
        boolean found = false;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                try {
                    if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) && !OwnerOnlyFiles.isOwnerOnly(f)) {
                        found = true;
                        OwnerOnlyFiles.tighten(f);
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // vanished meanwhile, or not ours to change: the 0700 directory still covers it
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the directory is gone or unreadable: nothing to tighten
        }
        return found;
    }

    /** The refusal, with the owner's uid: an operator compares it with the service user's. */
    private static IllegalStateException notYours(Path dir, NotYoursException e) {
        String uids;
        try {
            uids = ", uid " + Files.getAttribute(e.path(), "unix:uid", LinkOption.NOFOLLOW_LINKS)
                    + "; this process runs as uid " + Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException unknown) {
            uids = "";
        }
        return new IllegalStateException(
                "the server data dir " + dir
                        + (e.path().equals(dir.toAbsolutePath().normalize()) ? "" : " holds " + e.path() + ", which")
                        + " belongs to another user (" + e.owner() + uids
                        + "): run the server as that user, or give it a data dir of its own",
                e);
    }
}
