package org.leasesync.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Makes directories that only their owner may list or enter (0700) and files that only their owner
 * may read or write (0600), whatever the process umask, and tightens existing ones to that.
 *
 * <p>Why here and not once through the umask: Java cannot set the umask, and a user's own
 * {@code mkdir} (or an earlier version of leasesync) leaves a directory 0755 with its files 0644,
 * readable by every account on the machine. Every directory and file the client writes goes
 * through this class, so there is one rule and one implementation of it.
 *
 * <p>The rules:
 * <ul>
 *   <li>New directories and files are created with owner-only permissions from the start (the
 *       permission attribute given to the system call), then set exactly, since the umask may even
 *       have taken the owner's own bits away.</li>
 *   <li>Existing ones keep their owner bits and lose every group and other bit
 *       ({@link #tighten}); they must belong to this process's account, else
 *       {@link NotYoursException}: another account's file is neither used nor changed.</li>
 *   <li>A symbolic link met inside a tree is neither followed nor changed (Linux has no
 *       permissions on links, and its target is not this directory's to change). A directory given
 *       by name to {@link #directory} may be a link to a directory: that directory is checked.</li>
 *   <li>A file system that keeps no Unix permissions (FAT, some network shares) cannot hold an
 *       owner-only file: tightening fails with an {@link IOException} that says so.</li>
 * </ul>
 * On a file system without POSIX attributes at all (not Linux or macOS) directories and files are
 * created plainly and nothing is checked.
 *
 * <p>Stateless and thread-safe; every method blocks on the file system. Concurrent callers (other
 * threads or processes) may create, tighten or delete the same entries: a file that vanishes while
 * a tree is tightened is passed over.
 */
public final class OwnerOnlyFiles {

    /** 0700. */
    public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    /** 0600. */
    public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private static final Set<PosixFilePermission> OWNER_BITS = PosixFilePermissions.fromString("rwx------");
    private static final boolean POSIX =
            FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final boolean UNIX =
            FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final LinkOption[] FOLLOW = {};

    private OwnerOnlyFiles() {}

    /**
     * Makes sure {@code dir} is a directory of this account that only it can reach: creates it and
     * every missing parent with 0700, or tightens the existing one (its own bits, not what is in it:
     * see {@link #tightenTree}). Existing parents are left as they are.
     *
     * @return {@code dir} made absolute and normalised
     * @throws NotYoursException if it exists and belongs to another account
     * @throws NotDirectoryException if it (or a parent) exists and is not a directory
     * @throws IOException if it cannot be created or made owner-only (the message says why)
     */
    public static Path directory(Path dir) throws IOException {
        Path d = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(d)) {
            Deque<Path> missing = new ArrayDeque<>();
            for (Path p = d; p != null && !Files.isDirectory(p); p = p.getParent()) {
                if (Files.exists(p, NO_FOLLOW) && !Files.isSymbolicLink(p)) {
                    throw new NotDirectoryException(p + " is a file, not a directory");
                }
                missing.push(p);
            }
            for (Path p : missing) {
                try {
                    Files.createDirectory(p, attribute(DIRECTORY));
                    exact(p, DIRECTORY);
                } catch (FileAlreadyExistsException raced) {
                    // Another thread or process made it meanwhile; the last one is checked below.
                    if (!Files.isDirectory(p)) {
                        throw new NotDirectoryException(p + " is a file, not a directory");
                    }
                }
            }
        }
        tighten(d, FOLLOW);
        return d;
    }

    /**
     * Makes sure {@code file} exists as an owner-only file of this account: creates it empty with
     * 0600, or tightens the existing one. For writers that open the file themselves afterwards (a
     * log appender, H2, a lock file), which then never create it with the umask's permissions.
     *
     * <p>Another process may delete the file between its creation (or the check that it exists)
     * and the change of its permissions: H2's lock file changes hands that way while several
     * processes open one database. The file is then created again, up to {@link #VANISH_RETRIES}
     * times in a row.
     *
     * @return true when it was created now
     * @throws NotYoursException if it belongs to another account
     * @throws NoSuchFileException if its directory does not exist, or the file kept vanishing
     * @throws IOException if it cannot be created or made owner-only; its directory must exist
     */
    public static boolean file(Path file) throws IOException {
        for (int vanished = 0; ; vanished++) {
            try {
                try {
                    Files.createFile(file, attribute(FILE));
                } catch (FileAlreadyExistsException exists) {
                    tighten(file, NO_FOLLOW);
                    return false;
                }
                exact(file, FILE);
                return true;
            } catch (VanishedException gone) {
                if (vanished >= VANISH_RETRIES) {
                    throw new NoSuchFileException(
                            file.toString(), null, "deleted by another process each time it was made");
                }
            } catch (NoSuchFileException gone) {
                // createFile: no directory; tighten: deleted since createFile saw it
                if (!Files.isDirectory(file.toAbsolutePath().getParent()) || vanished >= VANISH_RETRIES) {
                    throw gone;
                }
            }
        }
    }

    /** How often in a row {@link #file} makes a file again that another process deleted meanwhile. */
    static final int VANISH_RETRIES = 100;

    /** A file deleted by another process between its creation and {@link #exact}. */
    private static final class VanishedException extends IOException {
        private static final long serialVersionUID = 1L;

        VanishedException(Path p, NoSuchFileException cause) {
            super("cannot make " + p + " owner-only: it was deleted meanwhile", cause);
        }
    }

    /**
     * Writes {@code content} to {@code file} atomically and owner-only: into a new 0600 file beside
     * it ({@code <name>.<random>.tmp}), then renamed over it, so a reader — another thread, another
     * process, a crash in between — sees the old content or the new, never a part; the old file's
     * permissions do not carry over. The directory must exist (make it with {@link #directory}).
     *
     * @throws IOException if it cannot be written; the temporary file is removed again and
     *     {@code file} is as it was
     */
    public static void write(Path file, byte[] content) throws IOException {
        write(file, content, false);
    }

    /**
     * {@link #write(Path, byte[])}, with the new content forced to the disk before the rename, so a
     * crash or power cut right after it leaves the old file or the whole new one — never an empty
     * file under the name, which some file systems can leave of a rename whose data was not yet
     * written. For the few files whose loss costs the user something (the signed-in accounts and
     * their tokens: signing in again); the files written at every start stay unforced, since a
     * sync to the disk there would slow every command down.
     *
     * @throws IOException as {@link #write(Path, byte[])}
     */
    public static void writeSynced(Path file, byte[] content) throws IOException {
        write(file, content, true);
    }

    private static void write(Path file, byte[] content, boolean synced) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, file.getFileName() + ".", ".tmp", attribute(FILE));
        try {
            exact(tmp, FILE);
            Files.write(tmp, content);
            if (synced) {
                try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                    c.force(true);
                }
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** {@link #write(Path, byte[])} of {@code text} in UTF-8. */
    public static void writeString(Path file, String text) throws IOException {
        write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Takes every group and other permission away from {@code path}, keeping the owner's. A
     * symbolic link is left as it is; a path that does not exist is no error.
     *
     * @throws NotYoursException if it belongs to another account (nothing is changed)
     * @throws IOException if its permissions cannot be changed
     */
    public static void tighten(Path path) throws IOException {
        try {
            tighten(path, NO_FOLLOW);
        } catch (NoSuchFileException | VanishedException gone) {
            // nothing to tighten
        }
    }

    /**
     * {@link #tighten} of {@code root} and of everything under it, top down (a directory before
     * what is in it), without following symbolic links. Entries that vanish meanwhile are passed
     * over.
     *
     * @throws NotYoursException at the first entry of another account (those before it are tightened)
     * @throws IOException if an entry cannot be read or changed
     */
    public static void tightenTree(Path root) throws IOException {
        if (!POSIX) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                tighten(dir);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                tighten(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Whether {@code path} (not followed when a link) reaches no other account: no group or other
     * permission bit. True on a file system without POSIX permissions, where nothing can be said.
     */
    public static boolean isOwnerOnly(Path path) throws IOException {
        if (!POSIX) {
            return true;
        }
        return OWNER_BITS.containsAll(
                Files.readAttributes(path, PosixFileAttributes.class, NO_FOLLOW).permissions());
    }

    private static void tighten(Path p, LinkOption[] follow) throws IOException {
        if (!POSIX) {
            return;
        }
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, follow);
        if (a.isSymbolicLink()) {
            return;
        }
        requireMine(p, a, follow);
        if (OWNER_BITS.containsAll(a.permissions())) {
            return;
        }
        Set<PosixFilePermission> tight = EnumSet.noneOf(PosixFilePermission.class);
        tight.addAll(a.permissions());
        tight.retainAll(OWNER_BITS);
        exact(p, tight);
    }

    /** Sets exactly {@code perms} (the umask applies to a permission attribute at creation, not to this). */
    private static void exact(Path p, Set<PosixFilePermission> perms) throws IOException {
        if (!POSIX) {
            return;
        }
        Set<PosixFilePermission> now;
        try {
            Files.setPosixFilePermissions(p, perms);
            now = Files.readAttributes(p, PosixFileAttributes.class).permissions();
        } catch (NoSuchFileException e) {
            throw new VanishedException(p, e);
        } catch (IOException e) {
            throw new IOException("cannot make " + p + " owner-only: " + e.getMessage(), e);
        }
        if (!OWNER_BITS.containsAll(now)) {
            throw new IOException("cannot make " + p + " owner-only: it stays " + PosixFilePermissions.toString(now)
                    + "; its file system keeps no Unix permissions (FAT, exFAT, some network shares)");
        }
    }

    private static void requireMine(Path p, PosixFileAttributes a, LinkOption[] follow) throws IOException {
        OptionalInt me = Me.UID;
        boolean mine;
        String owner = a.owner().getName();
        if (UNIX && me.isPresent()) {
            mine = ((Integer) Files.getAttribute(p, "unix:uid", follow)) == me.getAsInt();
        } else {
            mine = owner.equals(Me.NAME);
        }
        if (!mine) {
            throw new NotYoursException(p, owner, Me.NAME);
        }
    }

    private static FileAttribute<?>[] attribute(Set<PosixFilePermission> perms) {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)} : new FileAttribute<?>[0];
    }

    /** This process's account: the effective uid the kernel checks files against, read once. */
    private static final class Me {
        static final OptionalInt UID = effectiveUid();
        static final String NAME = System.getProperty("user.name", "?");

        private static OptionalInt effectiveUid() {
            // "Uid:  real  effective  saved  filesystem" (Linux); elsewhere the account name is compared.
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                    if (line.startsWith("Uid:")) {
                        return OptionalInt.of(Integer.parseInt(line.trim().split("\\s+")[2]));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux: fall back to the name
            }
            return OptionalInt.empty();
        }
    }
}
