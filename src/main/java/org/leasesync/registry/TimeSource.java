package org.leasesync.registry;

import java.time.Clock;
import java.time.Instant;

/**
 * The only way business code reads time (design.md invariant 3): a wall clock for what is shown
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
        };
    }

    /** The system with the UTC system clock. */
    static TimeSource system() {
        return system(Clock.systemUTC());
    }
}
