package org.leasesync.lease;

import java.util.Objects;

/**
 * What every write under a lease carries: the lease key, the owner and the epoch (fencing token) of
 * the lease. A write is committed only if this triple is still the current lease row
 * (invariant 4, fencing: docs/architecture.md).
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lease key: a {@link TaskKey} for a sync run, a {@link JobKey} for a server job
 * @param owner the lease holder
 * @param epoch the fencing token, &gt; 0
 */
public record Fence(LeaseKey key, OwnerId owner, long epoch) {

    /** @throws IllegalArgumentException if {@code epoch <= 0} */
    public Fence {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        if (epoch <= 0) {
            throw new IllegalArgumentException("epoch must be > 0, got " + epoch);
        }
    }

    /**
     * The key as a task key, for the writes only a sync run makes (run records, checkpoints, local
     * data).
     *
     * @throws IllegalStateException naming the key when this is the fence of a job key
     */
    public TaskKey taskKey() {
        return key.asTaskKey();
    }
}
