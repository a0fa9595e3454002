package org.leasesync.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.lease.TimeSource;

/**
 * A time source tests move by hand: {@link #elapse} advances both clocks (real time passing);
 * {@link #jumpWall} moves only the wall clock (NTP step, manual change, resume from sleep).
 * Its monotonic clock has an id of its own ({@link #monotonicClockId()}): every component given this
 * instance reads one clock, as the processes of one machine read {@code CLOCK_MONOTONIC};
 * {@link #withWallOffset} gives another process's view of it with a wall clock set differently.
 */
public final class ManualTime implements TimeSource {

    private final AtomicReference<Instant> wall;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final String clockId = "manual:" + UUID.randomUUID();

    public ManualTime(Instant start) {
        this.wall = new AtomicReference<>(start);
    }

    public ManualTime() {
        this(Instant.parse("2026-11-30T10:00:00Z"));
    }

    @Override
    public Instant now() {
        return wall.get();
    }

    @Override
    public long monotonicNanos() {
        return nanos.get();
    }

    @Override
    public Optional<String> monotonicClockId() {
        return Optional.of(clockId);
    }

    /**
     * This clock as a process whose wall clock is {@code offset} ahead (negative: behind) would read
     * it: the same monotonic clock (and id), the wall clock shifted. Moves with this one.
     */
    public TimeSource withWallOffset(Duration offset) {
        ManualTime base = this;
        return new TimeSource() {
            @Override
            public Instant now() {
                return base.now().plus(offset);
            }

            @Override
            public long monotonicNanos() {
                return base.monotonicNanos();
            }

            @Override
            public Optional<String> monotonicClockId() {
                return base.monotonicClockId();
            }
        };
    }

    /** Real time passes: both clocks advance. */
    public void elapse(Duration d) {
        nanos.addAndGet(d.toNanos());
        wall.updateAndGet(w -> w.plus(d));
    }

    /** Only the wall clock jumps (either direction); monotonic time does not move. */
    public void jumpWall(Duration d) {
        wall.updateAndGet(w -> w.plus(d));
    }
}
