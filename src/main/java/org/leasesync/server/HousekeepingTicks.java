package org.leasesync.server;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the server's housekeeping runs: every {@code busy} while a tick finds work, then after each tick
 * that found none twice as long as before, up to {@code idle}; {@link #wake()} brings the next tick back
 * to {@code busy} from now. With {@code idle} equal to {@code busy} it is a plain fixed delay.
 *
 * <p>Why: on a server nobody uses — the one the desktop app embeds, living in the tray for hours — a
 * tick a second is a wakeup a second, which costs an idle tray app more CPU than all the rest of it.
 * What the ticks do is owed only after requests (statistics to write, a failed claim release to retry,
 * a file the database made to tighten), and a request wakes them.
 *
 * <p>Thread-safe; {@link #wake()} never blocks and costs one volatile read while the ticks are not
 * backed off. A tick runs on the given executor; what it throws is logged and counts as work.
 */
final class HousekeepingTicks implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HousekeepingTicks.class);

    private final ScheduledExecutorService executor;
    private final BooleanSupplier tick;
    private final long busyMillis;
    private final long idleMillis;
    /** The delay before the pending tick; guarded by {@code this}. */
    private long delayMillis;

    private @Nullable ScheduledFuture<?> pending;
    private boolean closed;
    /** A wake came while a tick ran; guarded by {@code this}. */
    private boolean woken;
    /** True while the pending tick is further away than {@link #busyMillis}: a wake has work to do. */
    private volatile boolean backedOff;

    /**
     * @param tick one round of housekeeping; returns true if it found work (so the next comes soon)
     * @param busy the delay after a tick that found work and after a wake
     * @param idle the longest delay, reached by doubling after ticks that found nothing
     * @throws IllegalArgumentException if {@code busy} is not positive or {@code idle} is shorter
     */
    HousekeepingTicks(ScheduledExecutorService executor, BooleanSupplier tick, Duration busy, Duration idle) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.tick = Objects.requireNonNull(tick, "tick");
        this.busyMillis = busy.toMillis();
        this.idleMillis = idle.toMillis();
        if (busyMillis <= 0 || idleMillis < busyMillis) {
            throw new IllegalArgumentException(
                    "housekeeping delays must be 0 < busy <= idle, got " + busy + ", " + idle);
        }
    }

    /** Schedules the first tick, {@code busy} from now. */
    synchronized void start() {
        scheduleIn(busyMillis);
    }

    /**
     * The delay after a tick that waited {@code previousMillis}: {@code busy} after work, else twice
     * the previous delay, at most {@code idle}.
     */
    static long nextDelayMillis(long previousMillis, boolean foundWork, long busyMillis, long idleMillis) {
        if (foundWork) {
            return busyMillis;
        }
        return Math.min(idleMillis, Math.max(busyMillis, 2 * Math.min(previousMillis, idleMillis)));
    }

    /** There may be work soon (a request came in): the next tick is at most {@code busy} away. Never blocks. */
    void wake() {
        if (!backedOff) {
            return;
        }
        synchronized (this) {
            if (closed || !backedOff) {
                return;
            }
            ScheduledFuture<?> p = pending;
            if (p != null && (p.getDelay(TimeUnit.MILLISECONDS) <= busyMillis || !p.cancel(false))) {
                // due soon, or running now: either way the tick after it comes soon
                woken = true;
                backedOff = false;
                return;
            }
            scheduleIn(busyMillis);
        }
    }

    private void run() {
        boolean work;
        try {
            work = tick.getAsBoolean();
        } catch (RuntimeException e) {
            log.warn("housekeeping failed; it goes on: {}", e.toString());
            work = true;
        }
        synchronized (this) {
            work |= woken;
            woken = false;
            if (!closed) {
                scheduleIn(nextDelayMillis(delayMillis, work, busyMillis, idleMillis));
            }
        }
    }

    /** Guarded by {@code this}. */
    private void scheduleIn(long millis) {
        if (closed) {
            return;
        }
        delayMillis = millis;
        backedOff = millis > busyMillis;
        try {
            pending = executor.schedule(this::run, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("housekeeping executor closing; no further tick");
        }
    }

    /** Stops scheduling; a running tick finishes. */
    @Override
    public synchronized void close() {
        closed = true;
        backedOff = false;
        if (pending != null) {
            pending.cancel(false);
        }
    }
}
