package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import javafx.stage.Stage;

/**
 * One full collection {@link #AFTER_HIDE} after the window hides to the tray, if it is still hidden.
 * The serial collector gives committed heap back to the system only in a full collection, and none
 * comes by itself in the tray: what the open window grew the heap by (its repaints, the first syncs'
 * results) would stay resident all day. With the launcher's {@code -XX:MaxHeapFreeRatio=30} the heap
 * shrinks to its live size plus 30 % (docs/benchmarks.md). One pause of a few tens of milliseconds
 * while no window shows.
 *
 * <p>FX thread only ({@link #hidden()}); the collection runs on the thread {@code later} gives it.
 */
final class HiddenSettle {

    /** Long enough for the hide's own work (the last repaint, saving the window's place) to be garbage. */
    static final Duration AFTER_HIDE = Duration.ofSeconds(5);

    private final BooleanSupplier showing;
    private final BiConsumer<Duration, Runnable> later;
    private final Runnable collect;

    /**
     * @param showing whether the window shows now (read when the delay is over)
     * @param later runs a task once after a delay, off the FX thread
     * @param collect the full collection ({@code System::gc})
     */
    HiddenSettle(BooleanSupplier showing, BiConsumer<Duration, Runnable> later, Runnable collect) {
        this.showing = Objects.requireNonNull(showing);
        this.later = Objects.requireNonNull(later);
        this.collect = Objects.requireNonNull(collect);
    }

    /** Collects after {@code stage} hides, each time, on a daemon thread {@code hidden-settle}. */
    static void watch(Stage stage) {
        java.util.concurrent.atomic.AtomicBoolean shows =
                new java.util.concurrent.atomic.AtomicBoolean(stage.isShowing());
        HiddenSettle settle = new HiddenSettle(shows::get, HiddenSettle::afterDelay, System::gc);
        stage.showingProperty().addListener((o, was, now) -> {
            shows.set(now);
            if (!now) {
                settle.hidden();
            }
        });
    }

    /** The window was hidden: the collection is due {@link #AFTER_HIDE} later unless it shows again by then. */
    void hidden() {
        later.accept(AFTER_HIDE, () -> {
            if (!showing.getAsBoolean()) {
                collect.run();
            }
        });
    }

    private static void afterDelay(Duration delay, Runnable task) {
        Thread t = new Thread(
                () -> {
                    try {
                        Thread.sleep(delay.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                    task.run();
                },
                "hidden-settle");
        t.setDaemon(true);
        t.start();
    }
}
