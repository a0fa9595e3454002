package org.leasesync.server.jobs;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.lease.TimeSource;

/** A wall clock the test sets, with the real monotonic clock (leases behave as in production). Thread-safe. */
final class WallTime implements TimeSource {

    private final AtomicReference<Instant> wall;

    WallTime(Instant start) {
        this.wall = new AtomicReference<>(start);
    }

    void set(Instant now) {
        wall.set(now);
    }

    @Override
    public Instant now() {
        return wall.get();
    }

    @Override
    public long monotonicNanos() {
        return System.nanoTime();
    }
}
