package org.leasesync.run;

import java.util.concurrent.CompletableFuture;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.TaskKey;

/**
 * A run started by this process. Thread-safe.
 *
 * @param runId the run id
 * @param key the task key
 * @param lease the held lease (its {@link HeldLease#lostSignal()} is the lease-lost signal)
 * @param completion completes with the result when the run has ended and its lease is released
 */
public record RunHandle(String runId, TaskKey key, HeldLease lease, CompletableFuture<RunResult> completion) {

    /** The run's epoch (fencing token). */
    public long epoch() {
        return lease.fence().epoch();
    }
}
