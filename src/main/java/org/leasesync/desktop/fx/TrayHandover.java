package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.leasesync.client.DurationText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the tray over to a process without the window once the window has been closed to the tray
 * for {@link #after} ({@code desktop.resident.Resident}): a JVM that has loaded JavaFX keeps its
 * classes, GTK and the renderer's memory however long the window stays hidden, and a tray app runs
 * all day. The window's process ends after starting the tray process; opening the window from the
 * tray then starts JavaFX again in that process.
 *
 * <p>The handover waits while anything would be lost by it: a run of this process in progress (its
 * lease is this process's), another window showing (settings, a conflict, a dialog), or the window
 * shown again. {@code ready} says so, read on the FX thread; when it says no, the check comes again
 * {@link #RECHECK} later while the window stays hidden.
 *
 * <p>FX thread ({@link #hidden()}, {@link #shown()}); the delays run on the given timer.
 */
final class TrayHandover {

    /** The environment variable that sets the delay ({@code 20s}, {@code 2m}) or turns the handover off ({@code off}). */
    static final String ENV = "LEASESYNC_TRAY_HANDOVER_AFTER";
    /** How long the window stays hidden before the handover: a quick close and reopen keeps the window's process. */
    static final Duration DEFAULT_AFTER = Duration.ofSeconds(20);
    /** How soon a handover that had to wait is tried again. */
    static final Duration RECHECK = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(TrayHandover.class);

    private final BooleanSupplier ready;
    private final ScheduledExecutorService timer;
    private final Executor ui;
    private final Duration after;
    private final Runnable handover;
    private ScheduledFuture<?> due;
    private boolean done;

    /**
     * @param ready whether the handover may happen now (FX thread)
     * @param ui runs on the FX thread
     * @param handover ends this process in favour of the tray process (FX thread; called at most once)
     */
    TrayHandover(
            BooleanSupplier ready, ScheduledExecutorService timer, Executor ui, Duration after, Runnable handover) {
        this.ready = Objects.requireNonNull(ready);
        this.timer = Objects.requireNonNull(timer);
        this.ui = Objects.requireNonNull(ui);
        this.after = Objects.requireNonNull(after);
        this.handover = Objects.requireNonNull(handover);
    }

    /**
     * The delay {@code env} sets ({@link #ENV}): empty for {@code off}; {@link #DEFAULT_AFTER} when
     * unset, or when the value is not a duration (logged, with the value).
     */
    static Optional<Duration> after(Map<String, String> env) {
        String v = env.get(ENV);
        if (v == null || v.isBlank()) {
            return Optional.of(DEFAULT_AFTER);
        }
        if (v.strip().equalsIgnoreCase("off")) {
            return Optional.empty();
        }
        try {
            Duration d = DurationText.parse(v.strip());
            if (!d.isNegative()) {
                return Optional.of(d);
            }
        } catch (IllegalArgumentException e) {
            // logged below
        }
        log.warn(
                "{}={} is neither a duration (e.g. 20s) nor off; handing the tray over after {}",
                ENV,
                v,
                DurationText.format(DEFAULT_AFTER));
        return Optional.of(DEFAULT_AFTER);
    }

    /** The window was hidden to the tray: the handover is due {@link #after} later. */
    void hidden() {
        schedule(after);
    }

    /** The window shows again: no handover while it does. */
    void shown() {
        if (due != null) {
            due.cancel(false);
            due = null;
        }
    }

    private void schedule(Duration delay) {
        shown();
        if (!done) {
            due = timer.schedule(() -> ui.execute(this::check), delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void check() {
        if (due == null || done) {
            return; // shown again meanwhile
        }
        if (ready.getAsBoolean()) {
            done = true;
            due = null;
            handover.run();
        } else {
            schedule(RECHECK);
        }
    }
}
