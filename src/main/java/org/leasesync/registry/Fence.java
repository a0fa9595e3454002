package org.leasesync.registry;

import java.util.Objects;

/**
 * What every write of a run carries: the task key, the owner and the epoch (fencing token) of its
 * lease. A write is committed only if this triple is still the current lease row
 * (design.md invariant 4).
 *
 * @param key the task key
 * @param owner the lease holder
 * @param epoch the fencing token, &gt; 0
 */
public record Fence(TaskKey key, OwnerId owner, long epoch) {

    /** @throws IllegalArgumentException if {@code epoch <= 0} */
    public Fence {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        if (epoch <= 0) {
            throw new IllegalArgumentException("epoch must be > 0, got " + epoch);
        }
    }
}
