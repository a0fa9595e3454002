package org.leasesync.lease;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The heartbeat: renews every tracked lease (of any {@link LeaseKey}, task key or job key) once a
 * third of its TTL has passed since its last renewal (on the monotonic clock). A lease whose renewal finds it taken over, or whose local
 * validity ran out, fires its lease-lost signal.
 *
 * <p>A renewal that throws — a database failure, or even an {@link Error} — is logged and leaves
 * that lease to the next pass; it never ends the periodic renewal (a scheduled task that throws is
 * never run again, which would let every lease of this process run out, pass after pass, for the
 * rest of its life). A fatal error ({@link FatalErrorHandler#isFatal}) is also handed to the
 * process's handler.
 *
 * <p>Thread-safe. {@link #renewDue()} may be called directly (tests do, with a manual clock);
 * {@link #start(ScheduledExecutorService)} runs it periodically on an injected, named scheduler while
 * any lease is tracked: a process holding no lease — the app idle in the tray for hours — is not
 * woken by its heartbeat.
 */
public final class LeaseKeeper implements AutoCloseable {

    private static final System.Logger log = System.getLogger(LeaseKeeper.class.getName());

    private final TaskRegistry registry;
    private final Set<HeldLease> tracked = ConcurrentHashMap.newKeySet();
    private final FatalErrorHandler fatal;
    private volatile @Nullable ScheduledFuture<?> task;
    /** Where the periodic renewal runs once {@link #start} gave it; guarded by {@code this}. */
    private @Nullable ScheduledExecutorService scheduler;

    private boolean closed;

    /** A keeper whose fatal errors are only logged. */
    public LeaseKeeper(TaskRegistry registry) {
        this(registry, FatalErrorHandler.LOG_ONLY);
    }

    /** @param fatal told of a fatal error met while renewing */
    public LeaseKeeper(TaskRegistry registry, FatalErrorHandler fatal) {
        this.registry = registry;
        this.fatal = java.util.Objects.requireNonNull(fatal, "fatal");
    }

    /**
     * Starts renewing periodically (every TTL/6, at least every 20 ms apart) on {@code scheduler}, from
     * now while any lease is tracked and from {@link #track} on otherwise; the renewal stops while none
     * is. A second call is ignored.
     */
    public synchronized void start(ScheduledExecutorService scheduler) {
        if (this.scheduler != null || closed) {
            return;
        }
        this.scheduler = scheduler;
        tickIfTracking();
    }

    /** Starts keeping {@code lease} alive (and the periodic renewal, if it was stopped for want of leases). */
    public void track(HeldLease lease) {
        tracked.add(lease);
        tickIfTracking();
    }

    /**
     * Schedules the periodic renewal if it is started, not running and a lease is tracked. Paired with
     * the check in {@link #renewDueQuietly}: both hold {@code this}, and a lease is added before this
     * runs, so a renewal that stops for want of leases is started again by the track that came with it.
     */
    private synchronized void tickIfTracking() {
        ScheduledExecutorService s = scheduler;
        if (s == null || closed || task != null || tracked.isEmpty()) {
            return;
        }
        long periodMillis = Math.max(20, registry.ttl().toMillis() / 6);
        try {
            task = s.scheduleWithFixedDelay(this::renewDueQuietly, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.log(System.Logger.Level.DEBUG, "lease heartbeat scheduler shut down; no renewal scheduled");
        }
    }

    /** Whether the periodic renewal is scheduled now; for tests of its start and stop. */
    synchronized boolean beating() {
        return task != null;
    }

    /** Stops keeping {@code lease} alive (it is not released). */
    public void untrack(HeldLease lease) {
        tracked.remove(lease);
    }

    /**
     * Renews every tracked lease that is due. Blocks on the store.
     *
     * @return how many leases were found lost in this pass
     */
    // a concurrent key set: its iterator is weakly consistent, so removing while iterating is safe
    @SuppressWarnings("ModifyCollectionInEnhancedForLoop")
    public int renewDue() {
        int lostCount = 0;
        long now = registry.time().monotonicNanos();
        Duration ttl = registry.ttl();
        for (HeldLease lease : tracked) {
            if (!lease.isValid()) {
                if (!lease.isCancelRequested() && lease.remainingNanos() <= 0) {
                    lease.markLost(LeaseLoss.EXPIRED);
                }
                tracked.remove(lease);
                lostCount++;
                continue;
            }
            if (now - lease.lastRenewalStartNanos() < ttl.toNanos() / 3) {
                continue;
            }
            try {
                if (!registry.renew(lease)) {
                    log.log(
                            System.Logger.Level.WARNING,
                            "lease lost for {0} (epoch {1}): renewal refused",
                            lease.fence().key(),
                            lease.fence().epoch());
                    tracked.remove(lease);
                    lostCount++;
                }
            } catch (LeasesyncException e) {
                log.log(
                        System.Logger.Level.WARNING,
                        "could not renew lease for {0}: {1}",
                        lease.fence().key(),
                        e.getMessage());
            } catch (RuntimeException | Error e) {
                log.log(
                        System.Logger.Level.ERROR,
                        "renewing the lease for " + lease.fence().key() + " failed",
                        e);
                FatalErrorHandler.report(fatal, e);
            }
        }
        return lostCount;
    }

    private void renewDueQuietly() {
        try {
            renewDue();
            synchronized (this) {
                ScheduledFuture<?> t = task;
                if (tracked.isEmpty() && t != null) {
                    t.cancel(false); // no lease to keep: no wakeups until the next is tracked
                    task = null;
                }
            }
        } catch (Throwable e) {
            try {
                log.log(System.Logger.Level.ERROR, "lease heartbeat failed; it goes on at the next pass", e);
            } catch (Throwable ignored) {
                // out of memory while logging: still keep the heartbeat scheduled
            }
            FatalErrorHandler.report(fatal, e);
        }
    }

    /** Stops the periodic renewal; tracked leases are left to expire or be released by their runs. */
    @Override
    public synchronized void close() {
        closed = true;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }
}
