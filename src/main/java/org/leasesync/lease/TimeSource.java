package org.leasesync.lease;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * The only way business code reads time (invariant 3, time: docs/architecture.md): a wall clock for what
 * is shown
 * and stored, and a monotonic clock for every lease timing decision, so a wall-clock jump (NTP
 * step, sleep/resume, manual change) can neither steal a live lease nor keep a dead one.
 *
 * <p>Implementations are thread-safe and never block.
 */
public interface TimeSource {

    /** Wall-clock time, for display and for timestamps in rows. May jump in either direction. */
    Instant now();

    /**
     * Monotonic nanoseconds from an arbitrary origin; only differences are meaningful. Never goes
     * backwards within one process and is unaffected by wall-clock changes.
     */
    long monotonicNanos();

    /**
     * Names the clock behind {@link #monotonicNanos()} when other processes can read the same one:
     * a value stored by a time source with the same id can be subtracted from this one's
     * {@link #monotonicNanos()} to tell how long ago it was taken, whatever the wall clocks of the
     * two processes say. The system time source on Linux answers the kernel's {@code CLOCK_MONOTONIC}
     * of this boot (shared by every process on the machine; it does not advance while the machine
     * is suspended; {@code SystemMonotonicClock} says how it is recognised).
     *
     * @return the clock's id; empty (the default) when the values mean something only inside this
     *     process, so a stored value must never be compared with another process's
     */
    default Optional<String> monotonicClockId() {
        return Optional.empty();
    }

    /** The system: the given clock for wall time, {@link System#nanoTime()} for monotonic time. */
    static TimeSource system(Clock clock) {
        return new TimeSource() {
            @Override
            public Instant now() {
                return clock.instant();
            }

            @Override
            public long monotonicNanos() {
                return System.nanoTime();
            }

            @Override
            public Optional<String> monotonicClockId() {
                return SystemMonotonicClock.id();
            }
        };
    }

    /** The system with the UTC system clock. */
    static TimeSource system() {
        return system(Clock.systemUTC());
    }
}
