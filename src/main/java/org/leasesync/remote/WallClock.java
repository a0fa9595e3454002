package org.leasesync.remote;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.leasesync.lease.TimeSource;

/**
 * A {@link TimeSource}'s wall clock as a {@link Clock} in UTC, for the JDK's date arithmetic (an
 * HTTP-date {@code Retry-After}). Immutable; thread-safe as the time source is.
 */
final class WallClock extends Clock {

    private final TimeSource time;

    WallClock(TimeSource time) {
        this.time = time;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Only UTC is offered: the dates this reads carry their own zone. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("this clock is UTC only, not " + zone);
        }
        return this;
    }

    @Override
    public Instant instant() {
        return time.now();
    }
}
