package org.leasesync.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A server's data directory kept owner-only, whatever the umask and whether it existed: the
 * directory (and any parent this process creates for it) {@code 0700}, every file in it
 * {@code 0600} — the H2 database, its lock and trace files, {@code server.lock}. A directory that
 * belongs to another user is refused, since its owner could read everything the server writes.
 * On a file system without POSIX permissions (none of the project's) nothing is changed.
 *
 * <p>Stateless, thread-safe; every method blocks on the file system.
 */
public final class ServerDataDir {

    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private ServerDataDir() {
    }

    /**
     * Creates {@code dir} if needed (0700, parents created here too), checks that it is this user's,
     * and makes it and its files owner-only.
     *
     * @throws IllegalStateException if it is not a directory or belongs to another user (the message
     *     says whose and what to do)
     * @throws UncheckedIOException if it cannot be created or its permissions cannot be set
     */
    public static void prepare(Path dir) {
        Path abs = dir.toAbsolutePath();
        try {
            List<Path> created = new ArrayList<>();
            for (Path p = abs; p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS); p = p.getParent()) {
                created.add(0, p);
            }
            Files.createDirectories(abs);
            if (!Files.isDirectory(abs)) {
                throw new IllegalStateException("the server data dir " + dir + " is not a directory");
            }
            PosixFileAttributeView view = Files.getFileAttributeView(abs, PosixFileAttributeView.class);
            if (view == null) {
                return;
            }
            for (Path p : created) {
                Files.setPosixFilePermissions(p, DIRECTORY);
            }
            requireOwn(abs);
            Files.setPosixFilePermissions(abs, DIRECTORY);
            tightenFiles(abs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the server data dir " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes every regular file directly in {@code dir} owner-only (files H2 made since the last look,
     * e.g. a trace file, get the umask's permissions). Never throws: a file that vanished meanwhile
     * is skipped.
     */
    public static void tightenFiles(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                try {
                    if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                            && !Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS).equals(FILE)) {
                        Files.setPosixFilePermissions(f, FILE);
                    }
                } catch (FileSystemException | UnsupportedOperationException e) {
                    // vanished meanwhile (an H2 temp file), or not ours to change: the 0700 directory still covers it
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the directory is gone or unreadable: nothing to tighten
        }
    }

    /**
     * @throws IllegalStateException if {@code dir} belongs to another user than this process's
     */
    private static void requireOwn(Path dir) throws IOException {
        Object owner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Object me = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (!owner.equals(me)) {
            throw new IllegalStateException("the server data dir " + dir + " belongs to another user ("
                    + Files.getOwner(dir).getName() + ", uid " + owner + "; this process runs as uid " + me
                    + "): run the server as that user, or give it a data dir of its own");
        }
    }
}
