package org.leasesync.app;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When the window coming back to the foreground may ask for a sync: not within {@code debounce}
 * of the previous focus gain (window managers send bursts), not when the focus came back from one
 * of the app's own windows (dialogs, QA tools), and — per key — not when that key synced
 * successfully less than {@code minInterval} ago. Monotonic time for the debounce; wall time only
 * to compare with the stored last success. Not thread-safe: used on the FX thread.
 */
public final class ForegroundPolicy {

    private final Duration debounce;
    private final Duration minInterval;
    private long lastGainNanos = Long.MIN_VALUE;

    public ForegroundPolicy(Duration debounce, Duration minInterval) {
        this.debounce = debounce;
        this.minInterval = minInterval;
    }

    /**
     * The app regained focus.
     *
     * @param fromOwnWindow the focus came from another window of this app
     * @return whether to consider a foreground sync at all
     */
    public boolean onFocusGained(long nowNanos, boolean fromOwnWindow) {
        boolean debounced = lastGainNanos != Long.MIN_VALUE && nowNanos - lastGainNanos < debounce.toNanos();
        lastGainNanos = nowNanos;
        return !fromOwnWindow && !debounced;
    }

    /** Whether a key that last synced at {@code lastSuccess} is due for a foreground sync at {@code now}. */
    public boolean due(Optional<Instant> lastSuccess, Instant now) {
        return lastSuccess.isEmpty() || lastSuccess.get().isAfter(now) // the wall clock went back: do not trust it
                || !lastSuccess.get().plus(minInterval).isAfter(now);
    }

    public Duration minInterval() {
        return minInterval;
    }
}
