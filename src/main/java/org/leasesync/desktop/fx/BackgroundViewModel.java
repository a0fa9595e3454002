package org.leasesync.desktop.fx;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.CardOverlay;
import org.leasesync.desktop.Pause;
import org.leasesync.desktop.PauseControl;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.UserSettings;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.TaskSource;

/**
 * The view model of living in the background: pause, offline, desktop notifications, start at
 * login and the window's one-line notices. The window's menu and the tray both act through it.
 * It puts pause and offline over the cards ({@link MainViewModel#setOverlay}).
 *
 * <p>Properties and actions on the FX thread (the UI executor's thread); settings and the
 * autostart entry are written on the background executor.
 */
public final class BackgroundViewModel {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BackgroundViewModel.class);

    private final MainViewModel vm;
    private final SettingsFile settings;
    private final PauseControl pause;
    private final Autostart autostart;
    private final Executor background;
    private final Executor ui;
    private final TimeSource time;
    private final StatusTexts texts;
    private final ReadOnlyBooleanWrapper paused = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper pauseText = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper notifications = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper notificationsAvailable = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper startAtLogin = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper notice = new ReadOnlyStringWrapper("");
    /** When a notice of something just done clears itself; empty for a notice that stays until dismissed. */
    private Optional<Instant> noticeUntil = Optional.empty();

    private Optional<Instant> offlineNextTry = Optional.empty();
    private Map<Scope, Integer> pending = Map.of();

    BackgroundViewModel(
            MainViewModel vm,
            SettingsFile settings,
            PauseControl pause,
            Autostart autostart,
            Executor background,
            Executor ui,
            TimeSource time,
            StatusTexts texts) {
        this.vm = Objects.requireNonNull(vm);
        this.settings = Objects.requireNonNull(settings);
        this.pause = Objects.requireNonNull(pause);
        this.autostart = Objects.requireNonNull(autostart);
        this.background = Objects.requireNonNull(background);
        this.ui = Objects.requireNonNull(ui);
        this.time = Objects.requireNonNull(time);
        this.texts = Objects.requireNonNull(texts);
        this.notifications.set(settings.current().notifications());
        this.startAtLogin.set(autostart.enabled());
        pause.addListener(() -> ui.execute(this::showPause));
        showPause();
    }

    // ---- pause

    public ReadOnlyBooleanProperty pausedProperty() {
        return paused.getReadOnlyProperty();
    }

    /** "Paused until 15:00" while paused, else empty. */
    public ReadOnlyStringProperty pauseTextProperty() {
        return pauseText.getReadOnlyProperty();
    }

    /** Pauses timer and foreground syncs. */
    public void pause(Pause.Option option) {
        pause.pause(option);
    }

    public void resume() {
        pause.resume();
    }

    /** Ends a pause whose time is up and refreshes what depends on the clock. Any thread. */
    void tick() {
        pause.tick();
        ui.execute(() -> {
            showPause();
            noticeUntil.filter(until -> !time.now().isBefore(until)).ifPresent(until -> dismissNotice());
        });
    }

    private void showPause() {
        Optional<Pause> p = pause.active();
        paused.set(p.isPresent());
        pauseText.set(p.map(x -> texts.pause(x, time.now())).orElse(""));
        overlay();
    }

    // ---- offline

    /** The server cannot be reached; {@code waiting}: changes waiting per scope. FX thread. */
    void offline(Instant nextTry, Map<Scope, Integer> waiting) {
        offlineNextTry = Optional.of(nextTry);
        pending = Map.copyOf(waiting);
        overlay();
    }

    /** The server can be reached: syncs the account's keys (unless paused), then shows them as they are. FX thread. */
    void backOnline() {
        if (!paused.get()) {
            vm.backgroundTrigger(TaskSource.RETRY, key -> true);
        }
        // after the triggers above (same background thread, in order), so a card goes from offline to
        // syncing without showing the old failure in between
        background.execute(() -> ui.execute(this::online));
    }

    /** A sync reached the server. FX thread. */
    void online() {
        if (offlineNextTry.isPresent()) {
            offlineNextTry = Optional.empty();
            pending = Map.of();
            overlay();
        }
    }

    public boolean offline() {
        return offlineNextTry.isPresent();
    }

    private void overlay() {
        vm.setOverlay(new CardOverlay(time.now(), pause.active(), offlineNextTry, pending, Map.of()));
    }

    // ---- notifications

    /** Whether desktop notifications are switched on (the setting). */
    public ReadOnlyBooleanProperty notificationsProperty() {
        return notifications.getReadOnlyProperty();
    }

    /** Whether this desktop has a notification service leasesync can reach. */
    public ReadOnlyBooleanProperty notificationsAvailableProperty() {
        return notificationsAvailable.getReadOnlyProperty();
    }

    void notificationsAvailable(boolean available) {
        notificationsAvailable.set(available);
    }

    /** Switches desktop notifications on or off (saved). */
    public void setNotifications(boolean on) {
        notifications.set(on);
        save(s -> s.withNotifications(on));
    }

    // ---- start at login

    /** Whether the autostart entry exists. */
    public ReadOnlyBooleanProperty startAtLoginProperty() {
        return startAtLogin.getReadOnlyProperty();
    }

    /** Whether an autostart entry can be written (the installed app or leasesync.jar is running). */
    public boolean startAtLoginAvailable() {
        return autostart.available();
    }

    /** Writes or removes the XDG autostart entry (and saves the setting); a failure becomes a notice. */
    public void setStartAtLogin(boolean on) {
        startAtLogin.set(on);
        background.execute(() -> {
            try {
                if (on) {
                    autostart.enable();
                } else {
                    autostart.disable();
                }
                log.info("start at login {}: {}", on ? "on" : "off", autostart.entry());
                settings.update(s -> s.withStartAtLogin(on));
            } catch (RuntimeException e) {
                log.warn("start at login could not be changed: {}", e.getMessage());
                ui.execute(() -> {
                    startAtLogin.set(autostart.enabled());
                    notice.set(texts.messages().get("banner.autostartFailed", e.getMessage()));
                });
            }
        });
    }

    // ---- notices

    /** A one-line notice for the whole window (no tray, settings unreadable, …); empty for none. */
    public ReadOnlyStringProperty noticeProperty() {
        return notice.getReadOnlyProperty();
    }

    /** Shows a notice that stays until the user dismisses it (no tray, settings unreadable, …). FX thread. */
    void notice(String text) {
        notice.set(text);
        noticeUntil = Optional.empty();
    }

    /** How long a notice of something just done stays before it clears itself. */
    static final java.time.Duration TRANSIENT_NOTICE = java.time.Duration.ofSeconds(10);

    /**
     * Shows a notice of something just done ("Settings saved. …") that clears itself
     * {@link #TRANSIENT_NOTICE} later by the injected clock (checked at each refresh), unless another
     * notice replaced it. FX thread.
     */
    void transientNotice(String text) {
        notice.set(text);
        noticeUntil = Optional.of(time.now().plus(TRANSIENT_NOTICE));
    }

    /** Clears the notice (its close button). FX thread. */
    public void dismissNotice() {
        notice.set("");
        noticeUntil = Optional.empty();
    }

    /** The desktop has no tray: says once (ever, per data directory) that closing the window quits. */
    void noTray() {
        if (!settings.current().noTrayNoticeShown()) {
            notice.set(texts.messages().get("banner.noTray"));
            save(UserSettings::withNoTrayNoticeShown);
        }
    }

    private void save(java.util.function.UnaryOperator<UserSettings> change) {
        background.execute(() -> {
            try {
                settings.update(change);
            } catch (RuntimeException e) {
                log.warn("settings not saved: {}", e.getMessage());
                ui.execute(() -> notice.set(texts.messages().get("banner.settingsNotSaved", e.getMessage())));
            }
        });
    }
}
