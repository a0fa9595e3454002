package org.leasesync.desktop;

import java.time.Duration;

/**
 * When the window coming back to the foreground may ask for a sync at all: not within
 * {@code debounce} of the previous focus gain (window managers send bursts) and not when the focus
 * came back from one of the app's own windows (dialogs, QA tools). Per key, the trigger then asks
 * {@link org.leasesync.sync.RecentSyncGate#foregroundDue} whether the key synced successfully less
 * than {@code minInterval} ago (in any window, judged on the shared monotonic clock, never by
 * comparing a stored wall-clock time). Monotonic time for the debounce. Not thread-safe: used on the
 * FX thread.
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

    public Duration minInterval() {
        return minInterval;
    }
}
