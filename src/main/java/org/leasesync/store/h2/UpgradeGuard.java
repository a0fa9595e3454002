package org.leasesync.store.h2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may open the local database while its schema is being upgraded: an operating-system lock on
 * {@value #FILE} in the data directory, held while a process opens the database (not while it uses it).
 *
 * <p>The rule (one for every pair of versions that know it):
 * <ul>
 *   <li>an opener that finds the schema current holds it <em>shared</em> from before it connects until
 *       it has read the schema version, so any number of them open at once;</li>
 *   <li>an opener that has to create the file, migrate it, or put back the copy of an upgrade that
 *       did not finish ({@link UpgradeCopy}) holds it <em>exclusive</em> for the whole
 *       copy-migrate-discard step, and writes its {@link OwnerId} into the file meanwhile;</li>
 *   <li>a waiter waits as long as the holder is a live process that says it is upgrading (a migration
 *       in progress is never cut short by a timeout), otherwise at most the open timeout;</li>
 *   <li>two processes starting at once on an old data directory: the first to hold it exclusive
 *       migrates, the other waits, then finds the schema current and uses it. Never both.</li>
 * </ul>
 * Since every opener holds it while it connects, no process connects to the file while it is being
 * copied, migrated or put back; a process that opened the file earlier (with the current schema) is
 * not affected by an upgrade, because there is none to do.
 *
 * <p>Within one JVM the openers of a data directory take turns (a {@link ReentrantLock} per
 * directory): the operating system's record locks belong to the process, and a second channel on the
 * file closed by another thread would release them.
 *
 * <p>Thread-safe. {@link #shared} and {@link #exclusive} block while waiting; {@link #close()} never throws.
 */
public final class UpgradeGuard implements AutoCloseable {

    /** The guard file in the data directory. */
    static final String FILE = DataDirectory.FILE_BASE_NAME + ".upgrade.lock";

    private static final Logger log = LoggerFactory.getLogger(UpgradeGuard.class);
    private static final Map<Path, ReentrantLock> IN_THIS_JVM = new ConcurrentHashMap<>();
    private static final long POLL_MILLIS = 50;
    /** How often a waiter says again that it is still waiting for an upgrade. */
    private static final Duration REPEAT_WAITING = Duration.ofSeconds(15);

    private final ReentrantLock jvm;
    private final FileChannel channel;
    private final FileLock lock;

    private UpgradeGuard(ReentrantLock jvm, FileChannel channel, FileLock lock) {
        this.jvm = jvm;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Holds the guard shared: for an open that expects a current schema.
     *
     * @param openTimeout how long to wait for a holder that is not upgrading (opening, stopped or hung)
     * @param liveness how a holder that says it is upgrading is proved dead
     * @throws StoreException naming the data directory when the guard cannot be had in time, or its file
     *     cannot be created
     */
    public static UpgradeGuard shared(Path dataDir, Duration openTimeout, OwnerLiveness liveness) {
        return acquire(dataDir, true, openTimeout, liveness, null);
    }

    /**
     * Holds the guard exclusive: for creating, copying, migrating or putting back the database file.
     * Writes {@code self} into the guard file at once, so waiting processes wait for it as long as it
     * lives (best effort: a waiter that cannot read it applies its open timeout).
     *
     * @throws StoreException as {@link #shared}
     */
    public static UpgradeGuard exclusive(Path dataDir, Duration openTimeout, OwnerLiveness liveness, OwnerId self) {
        return acquire(dataDir, false, openTimeout, liveness, self);
    }

    private static UpgradeGuard acquire(
            Path dataDir, boolean shared, Duration openTimeout, OwnerLiveness liveness, OwnerId self) {
        Path dir = dataDir.toAbsolutePath().normalize();
        Path file = dir.resolve(FILE);
        ReentrantLock jvm = IN_THIS_JVM.computeIfAbsent(dir, d -> new ReentrantLock());
        jvm.lock();
        FileChannel channel = null;
        try {
            OwnerOnlyFiles.file(file);
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            long deadline = System.nanoTime() + openTimeout.toNanos();
            long nextNotice = System.nanoTime();
            while (true) {
                FileLock l = channel.tryLock(0, Long.MAX_VALUE, shared);
                if (l != null) {
                    if (!shared) {
                        announce(channel, self); // replaces that of a holder killed while upgrading
                    }
                    return new UpgradeGuard(jvm, channel, l);
                }
                Optional<OwnerId> upgrader = upgrader(channel).filter(o -> !liveness.isProvablyDead(o));
                long now = System.nanoTime();
                if (upgrader.isPresent()) {
                    deadline = now + openTimeout.toNanos(); // a migration in progress is waited for
                    if (now - nextNotice >= 0) {
                        log.warn(
                                "waiting for leasesync process {}, which is upgrading the local database in {}…",
                                upgrader.get().pid(),
                                dir);
                        nextNotice = now + REPEAT_WAITING.toNanos();
                    }
                } else if (now - deadline > 0) {
                    throw new StoreException("the local database in " + dir + " is being opened by another leasesync "
                            + "process that has not finished for " + openTimeout.toMillis() + " ms (stopped or hung?)"
                            + " — nothing was changed. Resume or end it, then try again.");
                }
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            }
        } catch (IOException | OverlappingFileLockException e) {
            close(channel);
            jvm.unlock();
            throw new StoreException("cannot use " + file + " to open the local database: " + e, e);
        } catch (InterruptedException e) {
            close(channel);
            jvm.unlock();
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting to open the local database in " + dir, e);
        } catch (RuntimeException e) {
            close(channel);
            jvm.unlock();
            throw e;
        }
    }

    private static void announce(FileChannel channel, OwnerId self) {
        try {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("upgrading=" + self.asString() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
        } catch (IOException e) {
            log.debug("could not announce the upgrade in {}: {}", FILE, e.toString());
        }
    }

    /** The process that said it is upgrading, read from the guard file (empty: none, or unreadable). */
    private static Optional<OwnerId> upgrader(FileChannel channel) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(2048);
            channel.read(buf, 0);
            Properties p = new Properties();
            p.load(new java.io.StringReader(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8)));
            String owner = p.getProperty("upgrading");
            return owner == null ? Optional.empty() : Optional.of(OwnerId.parse(owner));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether no process has {@code file} open read-write (H2 holds the operating system's lock on its
     * file while it is open). Only while holding this guard exclusive, and only when this JVM does not
     * have the file open.
     */
    public static boolean unopened(Path file) {
        if (!Files.exists(file)) {
            return true;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock l = ch.tryLock();
            if (l == null) {
                return false;
            }
            l.release();
            return true;
        } catch (OverlappingFileLockException e) {
            return false; // this JVM has it open
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Waits up to {@code wait} until no process has {@code file} open ({@link #unopened}): a copy is
     * taken, or put back, only then — an older leasesync that does not know this guard may still have it.
     *
     * @param toDo what cannot be done otherwise, for the message ("upgrade it from schema 8 to 10")
     * @throws StoreException naming the file, the process that has it (from H2's lock file) and what to do
     */
    public static void requireUnopened(Path file, Duration wait, String toDo) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!unopened(file)) {
            if (System.nanoTime() - deadline > 0) {
                String who = DatabaseHost.pid(DataDirectory.lockFile(file.getParent()))
                        .map(p -> "another process (pid " + p + ", an older leasesync?)")
                        .orElse("another process (an older leasesync?)");
                throw new StoreException("the local database " + file + " is open in " + who + ", so leasesync "
                        + "cannot " + toDo + " now — nothing was changed. Stop that process, then start leasesync "
                        + "again.");
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreException("interrupted while waiting for " + file + " to be closed", e);
            }
        }
    }

    private static void close(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // the lock goes with the channel
            }
        }
    }

    @Override
    public void close() {
        try {
            if (!lock.isShared()) {
                channel.truncate(0);
            }
            lock.release();
        } catch (IOException e) {
            log.debug("releasing {}: {}", FILE, e.toString());
        } finally {
            close(channel);
            jvm.unlock();
        }
    }
}
