package org.leasesync.lease;

import org.jspecify.annotations.Nullable;

/**
 * A write was refused because its lease is no longer current: the epoch moved (taken over after
 * expiry), the lease expired locally without a successful renewal, or the run was cancelled
 * (e.g. account switched). Design.md invariant 4: a fenced run can write nothing.
 */
public class LeaseLostException extends LeasesyncException {
    private static final long serialVersionUID = 1L;

    private final Fence fence;
    private final LeaseLoss reason;

    public LeaseLostException(Fence fence, LeaseLoss reason, @Nullable String detail) {
        super("lease lost for " + fence.key() + " (epoch " + fence.epoch() + "): " + reason.describe()
                + (detail == null || detail.isBlank() ? "" : " — " + detail));
        this.fence = fence;
        this.reason = reason;
    }

    /** The fence whose write was refused. */
    public Fence fence() {
        return fence;
    }

    /** Why the lease is gone. */
    public LeaseLoss reason() {
        return reason;
    }
}
