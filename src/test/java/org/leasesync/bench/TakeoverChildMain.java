package org.leasesync.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.LocalStore;

/**
 * A child process of {@link TakeoverBench}, on the app's local database file, with the app's owner
 * id and liveness check. {@code hold DIR TTL_MS}: takes the key, keeps renewing it (as a run's
 * process does), prints {@code HELD epoch}, and waits to be killed. {@code take DIR TTL_MS
 * provable|unprovable}: prints {@code OPENED wallMillis} once the database is open, then tries every
 * 5 ms and prints {@code GRANTED wallMillis epoch}; before its first attempt to open the database it
 * prints {@code OPENING wallMillis} (the start of the crash-takeover goal); with {@code unprovable} its registry cannot prove
 * any owner dead ({@link OwnerLiveness#neverProvable()}), so only the TTL frees the key.
 */
public final class TakeoverChildMain {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        Duration ttl = Duration.ofMillis(Long.parseLong(args[2]));
        OwnerId owner = OwnerId.forCurrentProcess();
        if (args[0].equals("take")) {
            System.out.println("OPENING " + System.currentTimeMillis());
            System.out.flush();
        }
        try (LocalStore store = LocalStore.openFile(dir)) {
            OwnerLiveness liveness = args.length > 3 && args[3].equals("unprovable")
                    ? OwnerLiveness.neverProvable()
                    : OwnerLiveness.processTable(owner.host());
            TaskRegistry registry = new TaskRegistry(store.leases(), owner, ttl, TimeSource.system(), liveness);
            if (args[0].equals("hold")) {
                HeldLease lease = registry.tryAcquire(KEY).orElseThrow(() -> new IllegalStateException("key is held"));
                ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
                LeaseKeeper keeper = new LeaseKeeper(registry);
                keeper.track(lease);
                keeper.start(scheduler);
                System.out.println("HELD " + lease.fence().epoch());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            } else {
                System.out.println("OPENED " + System.currentTimeMillis());
                System.out.flush();
                while (true) {
                    Optional<HeldLease> l = registry.tryAcquire(KEY);
                    if (l.isPresent()) {
                        System.out.println("GRANTED " + System.currentTimeMillis() + " "
                                + l.get().fence().epoch());
                        System.out.flush();
                        registry.release(l.get());
                        return;
                    }
                    Thread.sleep(5);
                }
            }
        }
    }
}
