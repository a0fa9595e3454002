package org.leasesync.desktop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer trigger: fires every {@code interval} ± 10% jitter. Exactly one tick is pending at a
 * time and the next is armed only after the previous one ran, so ticks missed while the machine
 * slept (the JDK's scheduler runs on the monotonic clock, which stops during suspend) coalesce into
 * one run on wake-up, never a burst.
 *
 * <p>Thread-safe. The tick runs on the injected scheduler (named {@code sync-timer-N}).
 */
public final class ScheduleTrigger implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ScheduleTrigger.class);

    private final ScheduledExecutorService timer;
    private Duration interval;
    private final Runnable tick;
    private ScheduledFuture<?> pending;
    private boolean stopped;

    /** @param tick asks the coordinator for a {@code schedule} run of the signed-in user's keys */
    public ScheduleTrigger(ScheduledExecutorService timer, Duration interval, Runnable tick) {
        this.timer = Objects.requireNonNull(timer);
        this.interval = Objects.requireNonNull(interval);
        this.tick = Objects.requireNonNull(tick);
    }

    /**
     * Changes the interval of the running timer (the settings dialog): the pending tick is re-armed
     * with the new interval from now, so a shorter one takes effect at once. Does not block.
     *
     * @throws IllegalArgumentException if {@code newInterval} is under 1 s
     */
    public synchronized void setInterval(Duration newInterval) {
        if (newInterval.compareTo(LaunchSettings.MIN_SCHEDULE_INTERVAL) < 0) {
            throw new IllegalArgumentException("schedule interval must be at least 1s, got " + newInterval);
        }
        interval = newInterval;
        if (pending != null && !stopped && pending.cancel(false)) {
            arm();
        }
    }

    /** The interval in force. */
    public synchronized Duration interval() {
        return interval;
    }

    /** Arms the first tick. */
    public synchronized void start() {
        stopped = false;
        arm();
    }

    private synchronized void arm() {
        if (stopped) {
            return;
        }
        long base = interval.toMillis();
        long jitter = (long) (base * 0.1 * (ThreadLocalRandom.current().nextDouble() * 2 - 1));
        pending = timer.schedule(this::fire, Math.max(1, base + jitter), TimeUnit.MILLISECONDS);
    }

    private void fire() {
        try {
            tick.run();
        } catch (RuntimeException e) {
            log.warn("scheduled sync trigger failed: {}", e.getMessage());
        } finally {
            arm();
        }
    }

    @Override
    public synchronized void close() {
        stopped = true;
        if (pending != null) {
            pending.cancel(false);
        }
    }
}
