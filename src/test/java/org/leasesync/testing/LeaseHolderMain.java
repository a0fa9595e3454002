package org.leasesync.testing;

import java.nio.file.Path;
import java.time.Duration;
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
 * A child process that holds a task key's lease the way a running sync's process does: the app's
 * owner id, liveness check and heartbeat on a data directory's database. Arguments
 * {@code DATA_DIR USER SCOPE TTL_MS}; prints {@code HELD epoch owner} once granted, then renews (every
 * TTL/3) until it is killed.
 */
public final class LeaseHolderMain {

    private LeaseHolderMain() {}

    public static void main(String[] args) throws Exception {
        TaskKey key = TaskKey.of(args[1], args[2]);
        OwnerId owner = OwnerId.forCurrentProcess();
        try (LocalStore store = LocalStore.openFile(Path.of(args[0]))) {
            TaskRegistry registry = new TaskRegistry(
                    store.leases(),
                    owner,
                    Duration.ofMillis(Long.parseLong(args[3])),
                    TimeSource.system(),
                    OwnerLiveness.processTable(owner.host()));
            HeldLease lease = registry.tryAcquire(key).orElseThrow(() -> new IllegalStateException(key + " is held"));
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
            LeaseKeeper keeper = new LeaseKeeper(registry);
            keeper.track(lease);
            keeper.start(scheduler);
            System.out.println("HELD " + lease.fence().epoch() + " " + owner.asString());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
