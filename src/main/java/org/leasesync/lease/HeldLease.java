package org.leasesync.lease;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A lease this process holds, on a task key or a job key: its {@link Fence}, its local validity on
 * the monotonic clock, and the lease-lost signal.
 *
 * <p>The holder trusts its lease only until {@code lastRenewalStart + ttl - margin} on its own
 * monotonic clock. An observer may take the key over only after seeing the same heartbeat for a
 * whole TTL on its monotonic clock, which starts after the holder's renewal started, so a holder
 * that stops writing at its local deadline never overlaps with a successor — whatever the wall
 * clocks say. Writes are additionally fenced by epoch in the database.
 *
 * <p>Thread-safe: the heartbeat thread renews, the run thread checks.
 */
public final class HeldLease {

    private final Fence fence;
    private final Duration ttl;
    private final TimeSource time;
    private final CompletableFuture<LeaseLoss> lost = new CompletableFuture<>();
    private volatile long lastRenewalStartNanos;
    private volatile boolean cancelRequested;

    HeldLease(Fence fence, Duration ttl, TimeSource time, long grantStartNanos) {
        this.fence = fence;
        this.ttl = ttl;
        this.time = time;
        this.lastRenewalStartNanos = grantStartNanos;
    }

    /** The fence, without checks. For the coordinator's own bookkeeping writes. */
    public Fence fence() {
        return fence;
    }

    /** The lease key (a {@link TaskKey} or a {@link JobKey}); the same as {@code fence().key()}. */
    public LeaseKey key() {
        return fence.key();
    }

    /** The TTL this lease was granted with. */
    public Duration ttl() {
        return ttl;
    }

    /**
     * The fence for a write the run is about to make; checks first that the lease is still valid
     * locally. Does not block.
     *
     * @throws LeaseLostException if the lease was lost, cancelled, or its local validity ran out
     *     (the latter also fires the lease-lost signal with {@link LeaseLoss#EXPIRED})
     */
    public Fence checkedFence() {
        if (cancelRequested) {
            throw new LeaseLostException(fence, LeaseLoss.CANCELLED, null);
        }
        if (lost.isDone()) {
            throw new LeaseLostException(fence, lost.join(), null);
        }
        if (remainingNanos() <= 0) {
            markLost(LeaseLoss.EXPIRED);
            throw new LeaseLostException(fence, LeaseLoss.EXPIRED, "no renewal within " + ttl);
        }
        return fence;
    }

    /**
     * The lease-lost signal: completes (once) with the reason when the lease is lost, cancelled,
     * expires locally, or is released. Never completes exceptionally.
     */
    public CompletableFuture<LeaseLoss> lostSignal() {
        return lost.copy();
    }

    /** Whether the lease is still believed valid: not lost, not cancelled, within local validity. */
    public boolean isValid() {
        return !cancelRequested && !lost.isDone() && remainingNanos() > 0;
    }

    /**
     * Why the lease is not valid: the lost signal's reason, else {@link LeaseLoss#EXPIRED} (local
     * validity ran out before a renewal). Only meaningful when {@link #isValid()} is false.
     */
    public LeaseLoss lossReason() {
        if (lost.isDone()) {
            return lost.join();
        }
        return cancelRequested ? LeaseLoss.CANCELLED : LeaseLoss.EXPIRED;
    }

    /** Whether cancellation was requested. */
    public boolean isCancelRequested() {
        return cancelRequested;
    }

    /** Nanoseconds of local validity left (negative when past). */
    public long remainingNanos() {
        return lastRenewalStartNanos + safeTtlNanos() - time.monotonicNanos();
    }

    long lastRenewalStartNanos() {
        return lastRenewalStartNanos;
    }

    /** Local validity is the TTL minus a 10% margin for scheduling delays. */
    private long safeTtlNanos() {
        long t = ttl.toNanos();
        return t - t / 10;
    }

    void renewed(long renewalStartNanos) {
        if (renewalStartNanos > lastRenewalStartNanos) {
            lastRenewalStartNanos = renewalStartNanos;
        }
    }

    public void requestCancel() {
        cancelRequested = true;
        lost.complete(LeaseLoss.CANCELLED);
    }

    /** Fires the lease-lost signal (first reason wins). */
    void markLost(LeaseLoss reason) {
        lost.complete(reason);
    }

    @Override
    public String toString() {
        return "HeldLease[" + fence.key() + " epoch " + fence.epoch() + "]";
    }
}
