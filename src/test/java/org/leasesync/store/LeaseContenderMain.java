package org.leasesync.store;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;

/**
 * A child process for {@link TwoProcessLeaseTest}: opens the data directory (or, given a
 * {@code jdbc:postgresql:} URL, that PostgreSQL database with the credentials in
 * {@code LEASESYNC_DB_USER} / {@code LEASESYNC_DB_PASSWORD}), waits for the go file, then competes.
 * Writes {@code WIN round epoch}, {@code HOLD epoch startNanos endNanos} (a shared task key) and
 * {@code JOBHOLD epoch startNanos endNanos} (a shared job key) lines.
 */
public final class LeaseContenderMain {

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[1]);
        Path out = Path.of(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int holds = Integer.parseInt(args[4]);
        try (LocalStore store = open(args[0], System.getenv());
                PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
            TaskRegistry registry = new TaskRegistry(
                    store.leases(),
                    OwnerId.forCurrentProcess(),
                    Duration.ofMinutes(5),
                    TimeSource.system(),
                    OwnerLiveness.neverProvable());
            w.println("READY");
            w.flush();
            while (!Files.exists(go)) {
                Thread.sleep(1);
            }
            for (int round = 0; round < rounds; round++) {
                Optional<HeldLease> l = registry.tryAcquire(TaskKey.of("round-" + round, "backup"));
                if (l.isPresent()) {
                    w.println("WIN " + round + " " + l.get().fence().epoch());
                }
            }
            TaskKey shared = TaskKey.of("shared", "course_sync");
            int held = 0;
            while (held < holds) {
                Optional<HeldLease> l = registry.tryAcquire(shared);
                if (l.isPresent()) {
                    long start = System.nanoTime();
                    Thread.onSpinWait();
                    long end = System.nanoTime();
                    w.println("HOLD " + l.get().fence().epoch() + " " + start + " " + end);
                    registry.release(l.get());
                    held++;
                }
            }
            JobKey job = JobKey.of("two-process-job");
            held = 0;
            while (held < holds) {
                Optional<HeldLease> l = registry.tryAcquire(job);
                if (l.isPresent()) {
                    long start = System.nanoTime();
                    Thread.onSpinWait();
                    long end = System.nanoTime();
                    w.println("JOBHOLD " + l.get().fence().epoch() + " " + start + " " + end);
                    registry.release(l.get());
                    held++;
                }
            }
            w.println("DONE");
            w.flush();
            Path end = Path.of(args[1] + ".end");
            while (!Files.exists(end)) {
                Thread.sleep(5);
            }
        }
    }

    /** Opens the registry a contender uses: a data directory, or a JDBC URL with the credentials in {@code env}. */
    static LocalStore open(String target, java.util.Map<String, String> env) {
        if (target.startsWith("jdbc:")) {
            return LocalStore.of(Database.open(
                    target, env.get("LEASESYNC_DB_USER"), env.get("LEASESYNC_DB_PASSWORD"), "PostgreSQL " + target, 4));
        }
        return LocalStore.openFile(Path.of(target));
    }
}
