package org.leasesync.store.h2;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Properties;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over H2's lock file ({@code leasesync.lock.db}) at once when the process that held it provably
 * died, instead of waiting for H2 to decide that on its own (about 4 s after a {@code kill -9}).
 *
 * <p>Why: in automatic mixed mode H2 guards the database with its {@code FILE} lock method. A process
 * killed with SIGKILL leaves its lock file behind, and the next process to open the database cannot
 * tell a dead holder from a live one on another machine sharing the directory, so it waits until
 * the file has not changed for 2 s, writes its own id into it, sleeps another 2 s and checks that
 * nobody wrote it back ({@code org.h2.store.FileLock#lockFile}): 4–6 s measured before every crash
 * takeover. A leasesync process that hosts the database records who it is next to the lock file, so
 * its successor can prove it dead the way the registry proves a lease owner dead.
 *
 * <p>The algorithm:
 * <ol>
 *   <li>After opening, a process that serves the database (H2's lock file names a port this process
 *       listens on) writes {@code leasesync.lock.owner}: the lock file's {@code id} and its own
 *       {@link OwnerId} (machine with pid namespace, pid, start in clock ticks since boot with the
 *       boot id).</li>
 *   <li>Before opening, if a lock file exists, its {@code id} equals the recorded one and the
 *       recorded owner {@linkplain OwnerLiveness#processTable provably died} (same machine, boot and
 *       pid namespace; its pid is gone or now belongs to a process with another start), the lock file
 *       is deleted — under an operating-system lock on {@code leasesync.lock.db.takeover} that every
 *       leasesync opener takes for this step, and only if its content is still exactly what was
 *       judged. H2 then creates a fresh lock file without waiting.</li>
 *   <li>Anything else — no record, another id (the host role moved to a process that did not record
 *       itself), an owner on another machine or boot, a live or unreadable owner, any I/O error —
 *       leaves the lock file alone and H2's own wait applies. Not provable is the safe answer.</li>
 * </ol>
 * Two live processes can never both hold the file through this: a live holder is never provably
 * dead, a content that changed since it was judged is not deleted, and H2 re-checks the lock file
 * after creating it ({@code Concurrent update}) as it always does; MVStore also holds an
 * operating-system lock on {@code leasesync.mv.db} while it is open.
 *
 * <p>Thread-safe (one takeover at a time per JVM). Blocks on file I/O only; never throws.
 */
public final class StaleLockFile {

    private static final Logger log = LoggerFactory.getLogger(StaleLockFile.class);
    /** The record of the process that hosts the database, beside H2's lock file. */
    static final String OWNER_FILE = DataDirectory.FILE_BASE_NAME + ".lock.owner";
    /** Serialises the judge-and-delete step between leasesync processes. */
    static final String TAKEOVER_GUARD = DataDirectory.FILE_BASE_NAME + ".lock.db.takeover";

    private static final String LOCK_FILE = DataDirectory.FILE_BASE_NAME + ".lock.db";
    private static final Object JVM_GUARD = new Object();

    private StaleLockFile() {}

    /**
     * Step 1: if this process serves the database in {@code dataDir}, records it as the lock file's
     * owner. Best effort: does nothing when this process is not the host or anything is unreadable.
     */
    public static void recordHost(Path dataDir, OwnerId self) {
        Path lock = dataDir.resolve(LOCK_FILE);
        try {
            Optional<String> id = lockId(lock);
            if (id.isEmpty() || !DatabaseHost.servedBy(lock, self.pid())) {
                return;
            }
            Properties p = new Properties();
            p.setProperty("lockId", id.get());
            p.setProperty("owner", self.asString());
            // The lock's id is also the key to the database server the host runs: the record is
            // owner-only like the lock file, and the id stays out of the log.
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            p.store(out, "the leasesync process that hosts the database");
            OwnerOnlyFiles.write(dataDir.resolve(OWNER_FILE), out.toByteArray());
            log.debug("recorded this process as the host of {}", lock);
        } catch (IOException | RuntimeException e) {
            log.debug("could not record the host of {}: {}", lock, e.toString());
        }
    }

    /**
     * Steps 2 and 3: deletes H2's lock file in {@code dataDir} when the process that held it provably
     * died.
     *
     * @param liveness how to judge the recorded owner
     * @return true when the lock file was deleted; false when there was none, it was not provably
     *     stale, or anything could not be read (then H2's own wait applies)
     */
    // "try": the file lock is held for the block, only its close is used
    @SuppressWarnings("try")
    public static boolean removeIfHostDead(Path dataDir, OwnerLiveness liveness) {
        Path lock = dataDir.resolve(LOCK_FILE);
        try {
            Optional<Properties> held = read(lock);
            Optional<Properties> record = read(dataDir.resolve(OWNER_FILE));
            if (held.isEmpty() || record.isEmpty()) {
                return false;
            }
            String id = held.get().getProperty("id");
            if (id == null || !id.equals(record.get().getProperty("lockId"))) {
                return false;
            }
            OwnerId owner = OwnerId.parse(record.get().getProperty("owner", ""));
            if (!liveness.isProvablyDead(owner)) {
                return false;
            }
            synchronized (JVM_GUARD) {
                try (FileChannel guard = openGuard(dataDir);
                        FileLock ignored = guard.lock()) {
                    if (!held.equals(read(lock))) {
                        return false; // another process took it over meanwhile, or it is gone
                    }
                    Files.delete(lock);
                }
            }
            log.info(
                    "{}: removed the lock file of leasesync process {}, which ended without closing the database",
                    lock,
                    owner.pid());
            return true;
        } catch (IOException | RuntimeException e) {
            log.debug("left the lock file {} to H2: {}", lock, e.toString());
            return false;
        }
    }

    /**
     * Opens the takeover guard of {@code dataDir} for an operating-system lock, creating it
     * owner-only. Shared with {@link UnfinishedCreation}.
     */
    static FileChannel openGuard(Path dataDir) throws IOException {
        Path guard = dataDir.resolve(TAKEOVER_GUARD);
        OwnerOnlyFiles.file(guard);
        return FileChannel.open(guard, StandardOpenOption.WRITE);
    }

    private static Optional<String> lockId(Path lock) throws IOException {
        return read(lock).map(p -> p.getProperty("id"));
    }

    private static Optional<Properties> read(Path file) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(p);
    }
}
