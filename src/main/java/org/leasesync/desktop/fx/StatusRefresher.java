package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableBooleanValue;

/**
 * Re-reads stored state (runs of other processes, scheduled retries, the pause's end) often while the
 * window is shown and seldom while it is hidden in the tray. A tray app runs all day: a refresh every
 * two seconds is a database read and a round of property updates on the FX thread, which then wakes
 * the renderer; hidden, only the tray icon's state needs them, and it can be a while late
 * (docs/benchmarks.md). Showing the window refreshes at once, so it never shows stale state.
 *
 * <p>{@link #start} and {@link #close} on the FX thread; {@code refresh} runs on {@code timer}.
 */
final class StatusRefresher implements AutoCloseable {

    private final ScheduledExecutorService timer;
    private final ObservableBooleanValue showing;
    private final Duration shown;
    private final Duration hidden;
    private final Runnable refresh;
    private final ChangeListener<Boolean> onShowing = (o, was, now) -> schedule(now);
    private ScheduledFuture<?> task;
    private boolean closed;

    /**
     * @param showing whether the window is shown ({@code Stage::showingProperty})
     * @param shown the period while shown
     * @param hidden the period while hidden (the tray icon's state may be this late)
     */
    StatusRefresher(
            ScheduledExecutorService timer,
            ObservableBooleanValue showing,
            Duration shown,
            Duration hidden,
            Runnable refresh) {
        this.timer = Objects.requireNonNull(timer);
        this.showing = Objects.requireNonNull(showing);
        this.shown = Objects.requireNonNull(shown);
        this.hidden = Objects.requireNonNull(hidden);
        this.refresh = Objects.requireNonNull(refresh);
    }

    /** Starts refreshing at the period the window's state asks for, and follows it. */
    void start() {
        showing.addListener(onShowing);
        schedule(null);
    }

    /** @param nowShowing the window was just shown ({@code true}) or hidden, or {@code null} at the start */
    private synchronized void schedule(Boolean nowShowing) {
        if (closed) {
            return;
        }
        if (task != null) {
            task.cancel(false);
        }
        boolean visible = nowShowing != null ? nowShowing : showing.get();
        long period = (visible ? shown : hidden).toMillis();
        // a window that comes back shows fresh state at once; otherwise the first refresh is a period away
        long first = Boolean.TRUE.equals(nowShowing) ? 0 : period;
        task = timer.scheduleWithFixedDelay(refresh, first, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        closed = true;
        showing.removeListener(onShowing);
        if (task != null) {
            task.cancel(false);
        }
    }
}
