package org.leasesync.desktop.fx;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Optional;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.stage.Window;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops JavaFX's pulse timer while no JavaFX window is showing and starts it again as soon as one
 * shows.
 *
 * <p>Why: on Linux JavaFX's GTK glass runs the pulse timer as a GLib timeout on the JavaFX
 * Application Thread every 1/60 s, and the toolkit's "pause when idle" does nothing there
 * ({@code GtkTimer._pause} is empty in JavaFX 21). With the window hidden in the tray no animation
 * runs and no pulse is needed, yet the thread still woke 60 times a second to find nothing to do,
 * about 0.3 CPU-s a minute (docs/benchmarks.md). A stopped timer costs nothing; while it is stopped
 * nothing renders or animates (there is nothing to show), {@code Platform.runLater} still runs, and
 * the pulse that follows a window's showing lays out and paints whatever changed meanwhile.
 *
 * <p>JavaFX has no public switch for this, so {@link ToolkitPulse#find()} reaches the toolkit's timer
 * by reflection. With JavaFX on the class path (the jar) that works as is; with JavaFX as named modules
 * (the jlink image) it needs the {@code --add-exports}/{@code --add-opens} of jlink/config.sh's
 * {@code FX_MODULE_OPTIONS}. Without access, or on a JavaFX whose internals differ, the app runs as
 * before with the timer always on, and says so once in the log.
 *
 * <p>FX thread only.
 */
final class PulseGate implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PulseGate.class);

    /** The pulse timer: stopped and started again, and whether it runs now. FX thread. */
    interface Pulse {
        void stop();

        void start();

        boolean running();
    }

    private final ObservableList<Window> showing;
    private final Pulse pulse;
    private final ListChangeListener<Window> onChange = c -> follow();
    private boolean closed;

    private PulseGate(ObservableList<Window> showing, Pulse pulse) {
        this.showing = Objects.requireNonNull(showing);
        this.pulse = Objects.requireNonNull(pulse);
    }

    /**
     * Follows {@code showing} from now on: the pulse runs exactly while it is not empty (at once too:
     * with no window showing, the timer stops now).
     *
     * @param showing the windows showing ({@link Window#getWindows()})
     */
    static PulseGate install(ObservableList<Window> showing, Pulse pulse) {
        PulseGate gate = new PulseGate(showing, pulse);
        showing.addListener(gate.onChange);
        gate.follow();
        return gate;
    }

    /**
     * As {@link #install(ObservableList, Pulse)} on JavaFX's own windows and timer; empty when the
     * timer cannot be reached ({@link ToolkitPulse#find()}).
     */
    static Optional<PulseGate> installOnToolkit() {
        return ToolkitPulse.find().map(p -> install(Window.getWindows(), p));
    }

    private void follow() {
        if (closed) {
            return;
        }
        boolean wanted = !showing.isEmpty();
        if (wanted && !pulse.running()) {
            pulse.start();
            log.debug("a window shows: JavaFX pulse started");
        } else if (!wanted && pulse.running()) {
            pulse.stop();
            log.debug("no window shows: JavaFX pulse stopped");
        }
    }

    /** Stops following the windows and leaves the pulse running, as JavaFX has it. */
    @Override
    public void close() {
        closed = true;
        showing.removeListener(onChange);
        if (!pulse.running()) {
            pulse.start();
        }
    }

    /**
     * The Quantum toolkit's pulse timer ({@code QuantumToolkit.pulseTimer}, a
     * {@code com.sun.glass.ui.Timer}) started again at the toolkit's own period
     * ({@code QuantumToolkit.PULSE_INTERVAL}, ms).
     */
    static final class ToolkitPulse implements Pulse {

        private final Object timer;
        private final int periodMs;
        private final Method start;
        private final Method stop;
        private final Method isRunning;

        private ToolkitPulse(Object timer, int periodMs, Method start, Method stop, Method isRunning) {
            this.timer = timer;
            this.periodMs = periodMs;
            this.start = start;
            this.stop = stop;
            this.isRunning = isRunning;
        }

        /**
         * The running toolkit's pulse timer, or empty (logged once at INFO) when it cannot be reached:
         * JavaFX as named modules without the options of jlink/config.sh, a toolkit other than Quantum,
         * or a JavaFX whose fields differ. Call after the toolkit started.
         */
        static Optional<Pulse> find() {
            try {
                Object toolkit = Class.forName("com.sun.javafx.tk.Toolkit")
                        .getMethod("getToolkit")
                        .invoke(null);
                Class<?> quantum = Class.forName("com.sun.javafx.tk.quantum.QuantumToolkit");
                if (!quantum.isInstance(toolkit)) {
                    log.info(
                            "the JavaFX pulse runs while the window is hidden: the toolkit is {}",
                            toolkit.getClass().getName());
                    return Optional.empty();
                }
                Field timerField = quantum.getDeclaredField("pulseTimer");
                timerField.setAccessible(true);
                Field periodField = quantum.getDeclaredField("PULSE_INTERVAL");
                periodField.setAccessible(true);
                Object timer = Objects.requireNonNull(timerField.get(toolkit), "pulseTimer");
                int period = periodField.getInt(toolkit);
                Class<?> timerClass = Class.forName("com.sun.glass.ui.Timer");
                if (!timerClass.isInstance(timer) || period <= 0) {
                    log.info(
                            "the JavaFX pulse runs while the window is hidden: an unexpected timer {} every {} ms",
                            timer.getClass().getName(),
                            period);
                    return Optional.empty();
                }
                return Optional.of(new ToolkitPulse(
                        timer,
                        period,
                        timerClass.getMethod("start", int.class),
                        timerClass.getMethod("stop"),
                        timerClass.getMethod("isRunning")));
            } catch (ReflectiveOperationException | RuntimeException e) {
                log.info(
                        "the JavaFX pulse runs while the window is hidden: its timer cannot be reached ({})",
                        e.toString());
                return Optional.empty();
            }
        }

        @Override
        public void stop() {
            call(stop);
        }

        @Override
        public void start() {
            call(start, periodMs);
        }

        @Override
        public boolean running() {
            return Boolean.TRUE.equals(call(isRunning));
        }

        private Object call(Method m, Object... args) {
            try {
                return m.invoke(timer, args);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("the JavaFX pulse timer refused " + m.getName(), e);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("the JavaFX pulse timer failed to " + m.getName(), e.getCause());
            }
        }
    }
}
