package org.leasesync.desktop;

import java.util.Objects;
import java.util.Optional;

/**
 * The window's own preferences, kept in {@code <data dir>/settings.json} by {@link SettingsFile}
 * (command-line options are not here: they are given per start).
 *
 * <p>Immutable; change one with the {@code with…} methods.
 *
 * @param notifications desktop notifications when a key keeps failing, needs attention or has a new
 *     conflict (default on)
 * @param startAtLogin the XDG autostart entry should exist (default off)
 * @param pause the pause in force, if any (default none)
 * @param noTrayNoticeShown the "this desktop has no system tray" notice was shown once already
 * @param launch the start options of the settings dialog (intervals, language)
 */
public record UserSettings(
        boolean notifications,
        boolean startAtLogin,
        Optional<Pause> pause,
        boolean noTrayNoticeShown,
        LaunchSettings launch) {

    /** What a first start uses. */
    public static final UserSettings DEFAULTS =
            new UserSettings(true, false, Optional.empty(), false, LaunchSettings.NONE);

    public UserSettings {
        Objects.requireNonNull(pause, "pause");
        Objects.requireNonNull(launch, "launch");
    }

    public UserSettings withLaunch(LaunchSettings l) {
        return new UserSettings(notifications, startAtLogin, pause, noTrayNoticeShown, l);
    }

    public UserSettings withNotifications(boolean on) {
        return new UserSettings(on, startAtLogin, pause, noTrayNoticeShown, launch);
    }

    public UserSettings withStartAtLogin(boolean on) {
        return new UserSettings(notifications, on, pause, noTrayNoticeShown, launch);
    }

    public UserSettings withPause(Optional<Pause> p) {
        return new UserSettings(notifications, startAtLogin, p, noTrayNoticeShown, launch);
    }

    public UserSettings withNoTrayNoticeShown() {
        return new UserSettings(notifications, startAtLogin, pause, true, launch);
    }
}
