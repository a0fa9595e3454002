package org.leasesync.desktop.fx;

import javafx.collections.ListChangeListener;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;
import org.leasesync.desktop.ForegroundPolicy;
import org.leasesync.lease.TimeSource;

/**
 * Watches the main window's focus. A lost → gained transition asks for a {@code foreground} sync,
 * unless {@link ForegroundPolicy} says no: debounced, and ignored when the focus comes back from one
 * of the app's own windows (a dialog or the QA tools were just active or closed).
 *
 * <p>FX thread only.
 */
final class ForegroundTrigger {

    /** How recently another app window must have been active for a focus gain to count as "from our own window". */
    static final long OWN_WINDOW_GRACE_NANOS = 1_500_000_000L;

    private final Stage main;
    private final ForegroundPolicy policy;
    private final TimeSource time;
    private final Runnable fire;
    private long lastOwnWindowActivity = Long.MIN_VALUE;

    ForegroundTrigger(Stage main, ForegroundPolicy policy, TimeSource time, Runnable fire) {
        this.main = main;
        this.policy = policy;
        this.time = time;
        this.fire = fire;
    }

    void install() {
        main.focusedProperty().addListener((o, was, now) -> {
            if (!was && now) {
                onMainFocusGained();
            }
        });
        for (Window w : Window.getWindows()) {
            watch(w);
        }
        Window.getWindows().addListener((ListChangeListener<Window>) c -> {
            while (c.next()) {
                c.getAddedSubList().forEach(this::watch);
                c.getRemoved().forEach(w -> ownActivity());
            }
        });
    }

    /** The main window regained focus (also called by tests that cannot produce real focus events). */
    void onMainFocusGained() {
        long now = time.monotonicNanos();
        boolean fromOwn =
                lastOwnWindowActivity != Long.MIN_VALUE && now - lastOwnWindowActivity < OWN_WINDOW_GRACE_NANOS
                        || Window.getWindows().stream().anyMatch(w -> w != main && w.isShowing() && w.isFocused());
        if (policy.onFocusGained(now, fromOwn)) {
            fire.run();
        }
    }

    private void watch(Window w) {
        if (w == main) {
            return;
        }
        w.focusedProperty().addListener((o, a, b) -> ownActivity());
        w.addEventHandler(WindowEvent.WINDOW_HIDDEN, e -> ownActivity());
        w.addEventHandler(WindowEvent.WINDOW_SHOWN, e -> ownActivity());
    }

    private void ownActivity() {
        lastOwnWindowActivity = time.monotonicNanos();
    }
}
