package org.leasesync.desktop;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.TaskSource;

/**
 * The pause: which one is in force, kept across restarts in {@link SettingsFile}. As a
 * {@link TriggerGate} it refuses {@code schedule}, {@code foreground} and {@code edit} triggers (the
 * automatic ones) while a pause is
 * in force; every other source passes. A pause whose end has passed is over: it is cleared (and the
 * file updated) by the next {@link #tick()} or question.
 *
 * <p>Thread-safe. Listeners are called on the thread that changed the pause (the caller of
 * {@link #pause}, {@link #resume} or {@link #tick}); the file is written on the injected executor.
 */
public final class PauseControl implements TriggerGate {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PauseControl.class);

    private final SettingsFile settings;
    private final TimeSource time;
    private final ZoneId zone;
    private final Executor io;
    private final Consumer<String> saveFailed;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private Optional<Pause> pause;

    /**
     * @param io writes the settings file (off the FX thread)
     * @param saveFailed told the reason when the file cannot be written (the pause still applies)
     */
    public PauseControl(SettingsFile settings, TimeSource time, ZoneId zone, Executor io, Consumer<String> saveFailed) {
        this.settings = Objects.requireNonNull(settings);
        this.time = Objects.requireNonNull(time);
        this.zone = Objects.requireNonNull(zone);
        this.io = Objects.requireNonNull(io);
        this.saveFailed = Objects.requireNonNull(saveFailed);
        this.pause = settings.current().pause();
    }

    /** Calls {@code l} after every change (paused, resumed, ended by itself). */
    public void addListener(Runnable l) {
        listeners.add(Objects.requireNonNull(l));
    }

    /** The pause in force now, if any. */
    public Optional<Pause> active() {
        tick();
        synchronized (this) {
            return pause;
        }
    }

    /** Pauses syncing with {@code option}, from now. */
    public void pause(Pause.Option option) {
        Pause p = option.from(time.now(), zone);
        set(Optional.of(p));
        log.info("sync paused {}", p.until().map(u -> "until " + u).orElse("until resumed"));
    }

    /** Resumes syncing. */
    public void resume() {
        if (set(Optional.empty())) {
            log.info("sync resumed");
        }
    }

    /** Ends a pause whose time is up. Call regularly (the window's status refresh does). */
    public void tick() {
        Instant now = time.now();
        boolean over;
        synchronized (this) {
            over = pause.isPresent() && !pause.get().activeAt(now);
        }
        if (over && set(Optional.empty())) {
            log.info("sync pause ended");
        }
    }

    @Override
    public Optional<String> refusal(TaskKey key, TaskSource source) {
        if (source != TaskSource.SCHEDULE && source != TaskSource.FOREGROUND && source != TaskSource.EDIT) {
            return Optional.empty();
        }
        return active().map(p ->
                "sync is paused " + p.until().map(u -> "until " + u).orElse("until resumed"));
    }

    private boolean set(Optional<Pause> next) {
        synchronized (this) {
            if (pause.equals(next)) {
                return false;
            }
            pause = next;
        }
        io.execute(() -> {
            try {
                settings.update(s -> s.withPause(next));
            } catch (RuntimeException e) {
                log.warn("could not save the pause: {}", e.getMessage());
                saveFailed.accept(e.getMessage());
            }
        });
        listeners.forEach(Runnable::run);
        return true;
    }
}
