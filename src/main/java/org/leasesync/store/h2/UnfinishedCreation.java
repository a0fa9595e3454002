package org.leasesync.store.h2;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Properties;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new local database whose creation never finished — its creating process was killed before the
 * schema was migrated — is set aside and created again, instead of being refused for good.
 *
 * <p>Found by a break-it trial: {@code kill -9} within ~100 ms of a first start left a cut-off file
 * that every later start reported as "damaged … restore it from a backup" (nothing of the user's was
 * ever in it), and a kill during the first migrations left a failed Flyway migration that made every
 * later open fail validation. Both made the data directory unusable until a person deleted files.
 *
 * <p>The rule: before a process creates the file it writes {@value #MARKER} naming itself; whoever
 * finishes migrating the new schema deletes it, before anything else is written. So while the marker
 * exists, no open has completed and the file holds nothing of the user's (edits are only saved through
 * an opened database). A later start that finds the marker, its creator provably dead (the registry's
 * rule: same host, that process gone), and the file open in no other process (the operating system's
 * lock on it is free), moves the database files aside (kept, as {@code *.unfinished}) and creates a
 * new one. A creator that may be alive, an unreadable marker, or a file another process has open
 * changes nothing: the normal open and its checks apply.
 *
 * <p>Thread-safe across processes through the same guard file as {@link StaleLockFile}. Never throws.
 */
public final class UnfinishedCreation {

    static final String MARKER = DataDirectory.FILE_BASE_NAME + ".creating";
    private static final Logger log = LoggerFactory.getLogger(UnfinishedCreation.class);
    private static final Object JVM_GUARD = new Object();

    private UnfinishedCreation() {}

    /** Before creating the database file in {@code dataDir}: records {@code self} as its creator. */
    public static void begin(Path dataDir, OwnerId self) {
        Properties p = new Properties();
        p.setProperty("creator", self.asString());
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            p.store(out, "a leasesync process is creating the database; deleted once its schema is migrated");
            OwnerOnlyFiles.write(dataDir.resolve(MARKER), out.toByteArray());
        } catch (IOException | RuntimeException e) {
            log.debug("could not write {}: {}", dataDir.resolve(MARKER), e.toString());
        }
    }

    /** After the schema of the database in {@code dataDir} was migrated: the creation is finished. */
    public static void finish(Path dataDir) {
        try {
            Files.deleteIfExists(dataDir.resolve(MARKER));
        } catch (IOException e) {
            log.debug("could not delete {}: {}", dataDir.resolve(MARKER), e.toString());
        }
    }

    /**
     * If the database in {@code dataDir} was being created by a process that provably died, and no
     * process has the file open, moves its files aside.
     *
     * @return true when they were moved aside (the caller then creates a new database)
     */
    // "try": the file lock is held for the block, only its close is used
    @SuppressWarnings("try")
    public static boolean setAsideIfCreatorDied(Path dataDir, OwnerLiveness liveness) {
        Path marker = dataDir.resolve(MARKER);
        Path file = dataDir.resolve(DataDirectory.FILE_BASE_NAME + ".mv.db");
        try {
            if (!Files.exists(marker)) {
                return false;
            }
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(marker)) {
                p.load(in);
            }
            OwnerId creator = OwnerId.parse(p.getProperty("creator", ""));
            if (!liveness.isProvablyDead(creator)) {
                return false;
            }
            synchronized (JVM_GUARD) {
                try (FileChannel guard = StaleLockFile.openGuard(dataDir);
                        FileLock ignored = guard.lock()) {
                    if (!Files.exists(marker)) {
                        return false; // another process finished or set it aside meanwhile
                    }
                    if (Files.exists(file) && !unopened(file)) {
                        return false; // a live process has it open (it connected before the creator died)
                    }
                    for (String suffix : new String[] {".mv.db", ".trace.db", ".lock.db", ".lock.owner"}) {
                        Path f = dataDir.resolve(DataDirectory.FILE_BASE_NAME + suffix);
                        if (Files.exists(f)) {
                            Files.move(
                                    f,
                                    dataDir.resolve(DataDirectory.FILE_BASE_NAME + suffix + ".unfinished"),
                                    StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                    Files.delete(marker);
                }
            }
            log.warn(
                    "{}: leasesync process {} was creating this database and ended before its schema was ready; "
                            + "it held nothing of yours, so it was set aside ({}.unfinished) and a new one is created",
                    file,
                    creator.pid(),
                    file.getFileName());
            return true;
        } catch (IOException | RuntimeException e) {
            log.debug("left {} as it is: {}", file, e.toString());
            return false;
        }
    }

    /** Whether no process has the file open read-write (H2 holds the operating system's lock on it while open). */
    private static boolean unopened(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Optional<FileLock> lock = Optional.ofNullable(ch.tryLock());
            lock.ifPresent(l -> {
                try {
                    l.release();
                } catch (IOException e) {
                    // released when the channel closes
                }
            });
            return lock.isPresent();
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return false; // this JVM has it open
        }
    }
}
