package org.leasesync.desktop.fx;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.leasesync.client.DurationText;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Language;
import org.leasesync.desktop.LaunchSettings;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.UserSettings;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.remote.ServerUrls;

/**
 * The settings dialog's view model: the fields as the user types them, checked all at once on
 * {@link #save()} with the command line's ranges; nothing is written unless every field is valid.
 * Intervals apply to the running window at once (unless the command line set them for this
 * launch); the language applies at the next start. The account is not a setting: the dialog shows
 * the signed-in account and opens the Sign in dialog ({@link AccountsViewModel}).
 *
 * <p>FX thread only. {@link #save()} blocks on a small file write.
 */
public final class SettingsViewModel {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SettingsViewModel.class);

    private final SettingsFile file;
    private final BackgroundViewModel desktop;
    private final StartOptions start;
    private final Messages m;
    private final BiConsumer<Duration, Duration> applyIntervals;

    private final StringProperty scheduleInterval = new SimpleStringProperty("");
    private final StringProperty foregroundMinInterval = new SimpleStringProperty("");
    private final BooleanProperty notifications = new SimpleBooleanProperty();
    private final BooleanProperty startAtLogin = new SimpleBooleanProperty();
    private final ObjectProperty<Language> language = new SimpleObjectProperty<>(Language.SYSTEM);
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper scheduleError = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper foregroundError = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper saveError = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper result = new ReadOnlyStringWrapper("");

    /**
     * @param start the settings in force and the options the command line gave
     * @param applyIntervals gets the new schedule and foreground intervals to apply to the running window
     */
    SettingsViewModel(
            SettingsFile file,
            BackgroundViewModel desktop,
            StartOptions start,
            Messages messages,
            BiConsumer<Duration, Duration> applyIntervals) {
        this.file = Objects.requireNonNull(file);
        this.desktop = Objects.requireNonNull(desktop);
        this.start = Objects.requireNonNull(start);
        this.m = Objects.requireNonNull(messages);
        this.applyIntervals = Objects.requireNonNull(applyIntervals);
        // a field's error is about the value that was refused: editing the field clears it
        scheduleInterval.addListener((o, a, b) -> clear(scheduleError));
        foregroundMinInterval.addListener((o, a, b) -> clear(foregroundError));
        reset();
    }

    private void clear(ReadOnlyStringWrapper fieldError) {
        fieldError.set("");
        error.set(joined());
    }

    private String joined() {
        return java.util.stream.Stream.of(scheduleError.get(), foregroundError.get(), saveError.get())
                .filter(t -> !t.isEmpty())
                .collect(java.util.stream.Collectors.joining(" "));
    }

    /** Fills the fields from the file (a value the file does not set: the one in force). */
    public void reset() {
        UserSettings s = file.current();
        LaunchSettings l = s.launch();
        Backend.AppSettings inForce = start.settings();
        scheduleInterval.set(DurationText.format(l.scheduleInterval().orElse(inForce.scheduleInterval())));
        foregroundMinInterval.set(
                DurationText.format(l.foregroundMinInterval().orElse(inForce.foregroundMinInterval())));
        notifications.set(desktop.notificationsProperty().get());
        startAtLogin.set(desktop.startAtLoginProperty().get());
        language.set(l.language());
        scheduleError.set("");
        foregroundError.set("");
        saveError.set("");
        error.set("");
    }

    public StringProperty scheduleIntervalProperty() {
        return scheduleInterval;
    }

    public StringProperty foregroundMinIntervalProperty() {
        return foregroundMinInterval;
    }

    public BooleanProperty notificationsProperty() {
        return notifications;
    }

    public BooleanProperty startAtLoginProperty() {
        return startAtLogin;
    }

    public boolean startAtLoginAvailable() {
        return desktop.startAtLoginAvailable();
    }

    public ObjectProperty<Language> languageProperty() {
        return language;
    }

    /**
     * Why the last {@link #save()} refused, naming each field and the allowed values, all at once
     * (and the file error, if that was why); empty when it did not.
     */
    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** What is wrong with the schedule interval as the last {@link #save()} found it; empty when nothing or once edited. */
    public ReadOnlyStringProperty scheduleIntervalErrorProperty() {
        return scheduleError.getReadOnlyProperty();
    }

    /** What is wrong with the foreground minimum interval as the last {@link #save()} found it; empty when nothing or once edited. */
    public ReadOnlyStringProperty foregroundMinIntervalErrorProperty() {
        return foregroundError.getReadOnlyProperty();
    }

    /** Why the last {@link #save()} could not write the file; empty when it could (or did not get that far). */
    public ReadOnlyStringProperty saveErrorProperty() {
        return saveError.getReadOnlyProperty();
    }

    /** What the last successful {@link #save()} did, e.g. "Settings saved. Language changes apply at the next start." */
    public ReadOnlyStringProperty resultProperty() {
        return result.getReadOnlyProperty();
    }

    /**
     * The note beside a field the command line set for this launch ("--schedule-interval 10s is in force
     * for this launch (command line); this value applies when leasesync starts without it"), else empty.
     *
     * @param option {@link StartOptions#SCHEDULE_INTERVAL}, {@link StartOptions#FOREGROUND_MIN_INTERVAL} or
     *     {@link StartOptions#SERVER} (the account given on the command line)
     */
    public String commandLineNote(String option) {
        if (!start.fromCommandLine().contains(option)) {
            return "";
        }
        Backend.AppSettings s = start.settings();
        String value = switch (option) {
            case StartOptions.SCHEDULE_INTERVAL -> DurationText.format(s.scheduleInterval());
            case StartOptions.FOREGROUND_MIN_INTERVAL -> DurationText.format(s.foregroundMinInterval());
            default -> s.server().map(ServerUrls::toString).orElse("");
        };
        return m.get("settings.fromCommandLine", option, value);
    }

    /**
     * Checks every field and, when all are valid, writes the file and applies what can be applied now.
     *
     * @return false when a field is invalid ({@link #errorProperty()} says which and what is allowed;
     *     nothing was saved) or the file could not be written (it says so; nothing changed)
     */
    public boolean save() {
        saveError.set("");
        Optional<Duration> checkedSchedule = checked(
                scheduleInterval.get(),
                LaunchSettings.MIN_SCHEDULE_INTERVAL,
                "settings.error.scheduleInterval",
                scheduleError);
        Optional<Duration> checkedForeground = checked(
                foregroundMinInterval.get(), Duration.ZERO, "settings.error.foregroundMinInterval", foregroundError);
        error.set(joined());
        if (checkedSchedule.isEmpty() || checkedForeground.isEmpty()) {
            result.set("");
            return false;
        }
        Duration schedule = checkedSchedule.get();
        Duration foreground = checkedForeground.get();
        UserSettings before = file.current();
        LaunchSettings next = new LaunchSettings(Optional.of(schedule), Optional.of(foreground), language.get());
        try {
            file.update(s -> s.withLaunch(next));
        } catch (LeasesyncException e) {
            log.warn("settings not saved: {}", e.getMessage());
            saveError.set(m.get("banner.settingsNotSaved", e.getMessage()));
            error.set(joined());
            return false;
        }
        error.set("");
        if (notifications.get() != desktop.notificationsProperty().get()) {
            desktop.setNotifications(notifications.get());
        }
        if (startAtLogin.get() != desktop.startAtLoginProperty().get() && desktop.startAtLoginAvailable()) {
            desktop.setStartAtLogin(startAtLogin.get());
        }
        Backend.AppSettings inForce = start.settings();
        Duration liveSchedule = start.fromCommandLine().contains(StartOptions.SCHEDULE_INTERVAL)
                ? inForce.scheduleInterval()
                : schedule;
        Duration liveForeground = start.fromCommandLine().contains(StartOptions.FOREGROUND_MIN_INTERVAL)
                ? inForce.foregroundMinInterval()
                : foreground;
        applyIntervals.accept(liveSchedule, liveForeground);
        boolean nextStart = !before.launch().language().equals(next.language());
        result.set(nextStart ? m.get("settings.saved.nextStart") : m.get("settings.saved"));
        if (nextStart) {
            desktop.transientNotice(result.get()); // the dialog closes; the window says what is still to come
        }
        log.info(
                "settings saved: schedule {}, foreground minimum {}, language {}",
                DurationText.format(schedule),
                DurationText.format(foreground),
                next.language().tag());
        return true;
    }

    /** The field's duration, or empty with {@code fieldError} saying what is wrong (set either way). */
    private Optional<Duration> checked(String text, Duration min, String errorKey, ReadOnlyStringWrapper fieldError) {
        try {
            Duration d = duration(text, min, errorKey);
            fieldError.set("");
            return Optional.of(d);
        } catch (Refused r) {
            fieldError.set(r.getMessage());
            return Optional.empty();
        }
    }

    private Duration duration(String text, Duration min, String errorKey) {
        Duration d;
        try {
            d = DurationText.parse(text);
        } catch (IllegalArgumentException e) {
            throw new Refused(m.get(errorKey, text == null ? "" : text.trim()));
        }
        if (d.compareTo(min) < 0) {
            throw new Refused(m.get(errorKey, text.trim()));
        }
        return d;
    }

    /** A field the dialog refuses; the message names it and what is allowed. */
    private static final class Refused extends LeasesyncException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }
}
