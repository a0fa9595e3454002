package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a data directory's database file looked like while no process had it open: its size, its
 * modification time and its file key (device and inode). A process that closed the file and finds the
 * same stamp later knows that nobody has written it since — without opening it, which would start H2's
 * lock file and its watchdog again. H2 writes the file when it closes it even after nothing but reads,
 * so a stamp is taken after one's own close, never before one's reads.
 *
 * <p>"No process has it open" is H2's lock file ({@link DataDirectory#lockFile}) being absent: H2
 * creates it before it opens the file and deletes it after the file is closed and written, and with
 * {@code AUTO_SERVER} every other process reaches an open file through the process that holds it.
 * A lock file left by a crashed process reads as open, which only means a look that was not needed.
 *
 * <p>Immutable; the static methods block on the file system.
 */
public record ClosedFileStamp(long size, FileTime modified, Object fileKey) {

    private static final Duration POLL = Duration.ofMillis(20);

    public ClosedFileStamp {
        Objects.requireNonNull(modified, "modified");
        Objects.requireNonNull(fileKey, "fileKey");
    }

    /**
     * The stamp of {@code dataDir}'s database file now.
     *
     * @return empty if a process has the file open (its lock file exists before or after the look), the
     *     file does not exist, or it cannot be read (nothing is known then)
     */
    public static Optional<ClosedFileStamp> read(Path dataDir) {
        Path lock = DataDirectory.lockFile(dataDir);
        if (Files.exists(lock, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(
                    DataDirectory.databaseFile(dataDir), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
        if (a.fileKey() == null || Files.exists(lock, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        return Optional.of(new ClosedFileStamp(a.size(), a.lastModifiedTime(), a.fileKey()));
    }

    /**
     * The stamp of {@code dataDir}'s database file once no process has it open, looking every 20 ms
     * for at most {@code wait}: after {@link org.leasesync.store.Database#closeIdleConnections}, whose
     * connections the pool closes on its own thread. Blocks up to {@code wait}.
     *
     * @return empty if it was still open after {@code wait} (another process uses it, or one of this
     *     process's connections is in use), or as {@link #read}
     */
    public static Optional<ClosedFileStamp> await(Path dataDir, Duration wait) {
        long polls = Math.max(1, wait.toMillis() / POLL.toMillis());
        for (long i = 0; ; i++) {
            Optional<ClosedFileStamp> s = read(dataDir);
            if (s.isPresent() || i >= polls) {
                return s;
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    /** Whether {@code dataDir}'s database file still has this stamp and no process has it open. Blocks on a stat. */
    public boolean unchangedIn(Path dataDir) {
        return read(dataDir).filter(this::equals).isPresent();
    }
}
