package org.leasesync.store.h2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.LeaseHolderMain;
import org.leasesync.testing.ProcessTest;

/**
 * H2's lock file of a host process that provably died is taken over at once; a live (or stopped)
 * host's lock file, and any lock file whose owner cannot be proven dead, is left to H2. Real child
 * JVMs on a real data directory, killed with SIGKILL.
 */
@ProcessTest
class StaleLockFileTest {

    private static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    private final OwnerLiveness liveness = OwnerLiveness.processTable(OwnerId.localMachine());

    @Test
    void lockFileOfAKilledHostIsTakenOverAndItsLeaseGoesToTheNextProcess() throws Exception {
        Path dir = tmp.resolve("data");
        Process holder = startHolder(dir);
        try {
            Properties record = read(dir.resolve(StaleLockFile.OWNER_FILE));
            assertThat(OwnerId.parse(record.getProperty("owner")).pid()).isEqualTo(holder.pid());
            assertThat(record.getProperty("lockId"))
                    .isEqualTo(read(lockFile(dir)).getProperty("id"));
            holder.destroyForcibly();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(lockFile(dir)).as("SIGKILL leaves H2's lock file behind").exists();

            assertThat(StaleLockFile.removeIfHostDead(dir, liveness)).isTrue();
            assertThat(lockFile(dir)).doesNotExist();

            try (LocalStore store = LocalStore.openFile(dir)) {
                OwnerId me = OwnerId.forCurrentProcess();
                TaskRegistry registry = new TaskRegistry(
                        store.leases(),
                        me,
                        Duration.ofMinutes(1),
                        TimeSource.system(),
                        OwnerLiveness.processTable(me.host()));
                Optional<HeldLease> lease = registry.tryAcquire(KEY);
                assertThat(lease).as("the dead holder's lease is taken over").isPresent();
                assertThat(lease.get().fence().epoch()).isEqualTo(2);
                registry.release(lease.get());
                Properties now = read(dir.resolve(StaleLockFile.OWNER_FILE));
                assertThat(OwnerId.parse(now.getProperty("owner")).pid())
                        .isEqualTo(ProcessHandle.current().pid());
                assertThat(now.getProperty("lockId"))
                        .isEqualTo(read(lockFile(dir)).getProperty("id"))
                        .isNotEqualTo(record.getProperty("lockId"));
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void lockFileOfALiveOrStoppedHostIsLeftAloneAndTheDatabaseIsSharedThroughIt() throws Exception {
        Path dir = tmp.resolve("data");
        Process holder = startHolder(dir);
        try {
            Properties before = read(lockFile(dir));
            assertThat(StaleLockFile.removeIfHostDead(dir, liveness)).isFalse();
            signal("STOP", holder.pid());
            try {
                assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                        .as("a stopped process is alive")
                        .isFalse();
            } finally {
                signal("CONT", holder.pid());
            }
            assertThat(read(lockFile(dir))).isEqualTo(before);

            try (LocalStore store = LocalStore.openFile(dir)) {
                OwnerId me = OwnerId.forCurrentProcess();
                TaskRegistry registry = new TaskRegistry(
                        store.leases(),
                        me,
                        Duration.ofMinutes(1),
                        TimeSource.system(),
                        OwnerLiveness.processTable(me.host()));
                assertThat(registry.tryAcquire(KEY))
                        .as("the live holder keeps its lease")
                        .isEmpty();
                assertThat(read(lockFile(dir)))
                        .as("the live host still holds the file")
                        .isEqualTo(before);
            }
            assertThat(holder.isAlive()).isTrue();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void lockFileIsLeftToH2WhenItsOwnerIsNotProvablyDead() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("files"));
        OwnerId me = OwnerId.forCurrentProcess();
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor(10, TimeUnit.SECONDS);
        OwnerId dead = new OwnerId(me.host(), ended.pid(), me.start(), "abc");
        OwnerId elsewhere = new OwnerId("another-machine:pidns4026531836", ended.pid(), me.start(), "abc");

        writeLock(dir, "17a0b1c2d3");
        writeRecord(dir, "17a0b1c2d3", elsewhere);
        assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                .as("an owner on another machine")
                .isFalse();
        writeRecord(dir, "ffff000011", dead);
        assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                .as("a record of another lock id")
                .isFalse();
        writeRecord(dir, "17a0b1c2d3", me);
        assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                .as("a live owner")
                .isFalse();
        Files.writeString(dir.resolve(StaleLockFile.OWNER_FILE), "lockId=17a0b1c2d3\nowner=not an owner id\n");
        assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                .as("an unreadable record")
                .isFalse();
        assertThat(lockFile(dir)).exists();

        writeRecord(dir, "17a0b1c2d3", dead);
        assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                .as("same machine, pid gone")
                .isTrue();
        assertThat(lockFile(dir)).doesNotExist();
        assertThat(StaleLockFile.removeIfHostDead(dir, liveness))
                .as("no lock file")
                .isFalse();
    }

    private Process startHolder(Path dir) throws Exception {
        Path log = tmp.resolve("holder.log");
        Process p = JavaProcess.start(LeaseHolderMain.class, log, dir.toString(), "alice", "course_sync", "60000");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(log) && Files.readString(log).contains("HELD "))) {
            assertThat(p.isAlive())
                    .as("holder ended: %s", Files.exists(log) ? Files.readString(log) : "")
                    .isTrue();
            assertThat(System.nanoTime())
                    .as("holder did not start: %s", Files.readString(log))
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        return p;
    }

    private static void signal(String sig, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + sig, Long.toString(pid))
                        .start()
                        .waitFor())
                .isZero();
    }

    private static Path lockFile(Path dir) {
        return dir.resolve(DataDirectory.FILE_BASE_NAME + ".lock.db");
    }

    private static Properties read(Path file) throws Exception {
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in);
        }
        return p;
    }

    private static void writeLock(Path dir, String id) throws Exception {
        Files.writeString(lockFile(dir), "#FileLock\nid=" + id + "\nmethod=FILE\nserver=127.0.0.1\\:1\n");
    }

    private static void writeRecord(Path dir, String lockId, OwnerId owner) throws Exception {
        Properties p = new Properties();
        p.setProperty("lockId", lockId);
        p.setProperty("owner", owner.asString());
        try (OutputStream out = Files.newOutputStream(dir.resolve(StaleLockFile.OWNER_FILE))) {
            p.store(out, null);
        }
    }
}
