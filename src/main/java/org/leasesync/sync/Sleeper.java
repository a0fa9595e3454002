package org.leasesync.sync;

import java.time.Duration;

/** Waits; injected so that tests need not. */
@FunctionalInterface
public interface Sleeper {

    /** Blocks for about {@code d}. @throws InterruptedException if interrupted */
    void sleep(Duration d) throws InterruptedException;

    /** {@link Thread#sleep(long)}. */
    static Sleeper real() {
        return d -> Thread.sleep(d.toMillis());
    }
}
