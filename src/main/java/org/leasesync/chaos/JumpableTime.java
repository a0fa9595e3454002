package org.leasesync.chaos;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.leasesync.lease.TimeSource;

/**
 * The system's time with a wall clock that can be jumped forward or back at run time (an NTP step,
 * a sleep/resume, a manual change), the way the chaos harness moves a client's clock. Monotonic time
 * is the system's and never jumps (invariant 3, time: docs/architecture.md). Thread-safe; never blocks.
 */
final class JumpableTime implements TimeSource {

    private final Clock base;
    private final AtomicLong offsetMillis = new AtomicLong();

    JumpableTime(Clock base) {
        this.base = base;
    }

    /** Moves the wall clock by {@code by} (negative: back). */
    void jump(Duration by) {
        offsetMillis.addAndGet(by.toMillis());
    }

    /** The current total offset from the system clock. */
    Duration offset() {
        return Duration.ofMillis(offsetMillis.get());
    }

    @Override
    public Instant now() {
        return base.instant().plusMillis(offsetMillis.get());
    }

    @Override
    public long monotonicNanos() {
        return System.nanoTime();
    }

    @Override
    public Optional<String> monotonicClockId() {
        return SYSTEM.monotonicClockId(); // the system's monotonic clock, whatever the wall clock says
    }

    private static final TimeSource SYSTEM = TimeSource.system();
}
