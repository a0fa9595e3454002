package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.store.Database;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the start-up check ({@link DatabaseFileCheck}) skip its full read of every row when the
 * database file is exactly as leasesync left it at a clean close (the full check would read
 * every row, a million records of a big data directory, at every start).
 *
 * <p>After the last connection of this process closed the file and no other process has it open,
 * {@link #writeIfAtRest} records the file's identity next to it ({@code leasesync.mv.db.clean}): its
 * size, its last-modified time in nanoseconds and its file key (inode). {@link #matches} is true only
 * when all three are unchanged. The marker is removed when leasesync opens the file, before H2 can
 * write to it ({@link #remove}), and written again only by a close after which no process has it open
 * — and not at all when the session saw the file damaged or a write refused ({@link Database#close}).
 * So the full check runs again after every unclean stop (whatever the file system's timestamp
 * resolution), after every change from outside (a truncating copy, a sync tool replacing it: size,
 * time or inode change), and on the first start. The identity is the one of the file H2 writes: a
 * symbolic link is followed. What the full check would find and this does not: bytes changed in place
 * with the size and the modification time put back by hand (a bounded structural check of the
 * headers, the newest chunk's header and footer, and the file's last chunk still runs at every start,
 * and H2's own open reads the newest chunk's metadata; damage it finds there is reported as damage).
 *
 * <p>The marker is written owner-only and atomically ({@link OwnerOnlyFiles#write}).
 *
 * <p>Stateless and thread-safe; blocks on file I/O. Never throws: a marker that cannot be written or
 * read only means the full check runs.
 */
public final class CleanCloseMarker {

    private static final Logger log = LoggerFactory.getLogger(CleanCloseMarker.class);

    private CleanCloseMarker() {}

    /** The marker of {@code file}. */
    public static Path markerOf(Path file) {
        return file.resolveSibling(file.getFileName() + ".clean");
    }

    /**
     * Records {@code file}'s identity if it exists and no process has it open; else removes any marker.
     * The identity is read and written while this process holds a shared lock on the file, so no other
     * process can open it for writing in between.
     */
    public static void writeIfAtRest(Path file) {
        Path marker = markerOf(file);
        try {
            if (!Files.exists(file)) {
                Files.deleteIfExists(marker);
                return;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                FileLock lock;
                try {
                    lock = ch.tryLock(0, Long.MAX_VALUE, true);
                } catch (OverlappingFileLockException e) {
                    lock = null; // this process still has it open
                }
                if (lock == null) {
                    Files.deleteIfExists(marker);
                    return;
                }
                try {
                    OwnerOnlyFiles.writeString(marker, identity(file).orElseThrow());
                } finally {
                    lock.release();
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("could not record the clean close of {}", file, e);
            remove(file);
        }
    }

    /**
     * Removes {@code file}'s marker, if any: done when the file is opened for writing (so a crash of
     * that session can never leave a matching marker, however coarse the file system's timestamps),
     * and at a close after the session saw the file damaged or a write refused.
     */
    public static void remove(Path file) {
        try {
            Files.deleteIfExists(markerOf(file));
        } catch (IOException | RuntimeException e) {
            log.debug("could not remove the clean-close marker of {}", file, e);
        }
    }

    /** Whether {@code file} is unchanged since its last clean close. */
    public static boolean matches(Path file) {
        try {
            Path marker = markerOf(file);
            if (!Files.isRegularFile(marker)) {
                return false;
            }
            Optional<String> now = identity(file);
            return now.isPresent() && now.get().equals(Files.readString(marker, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Optional<String> identity(Path file) throws IOException {
        // The identity of the file H2 writes: a symbolic link's own never changes when its target is written.
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        if (a.fileKey() == null) {
            return Optional.empty(); // no inode on this file system: never trusted
        }
        return Optional.of("size=" + a.size() + "\nmodifiedNanos="
                + a.lastModifiedTime().to(TimeUnit.NANOSECONDS) + "\nfileKey=" + a.fileKey() + "\n");
    }
}
