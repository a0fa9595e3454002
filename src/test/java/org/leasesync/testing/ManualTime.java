package org.leasesync.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.registry.TimeSource;

/**
 * A time source tests move by hand: {@link #elapse} advances both clocks (real time passing);
 * {@link #jumpWall} moves only the wall clock (NTP step, manual change, resume from sleep).
 */
public final class ManualTime implements TimeSource {

    private final AtomicReference<Instant> wall;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

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
