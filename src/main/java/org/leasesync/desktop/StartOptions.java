package org.leasesync.desktop;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a window start runs with: the command line's settings, with each start option the command
 * line did not give taken from {@code settings.json} when the file sets it (schedule interval,
 * foreground minimum interval), and the locale of the chosen language: the settings' {@code language},
 * else the system's as the environment names it ({@link SystemLocale}). The server and account come
 * from the command line or the signed-in accounts, never from the settings file.
 *
 * <p>Immutable.
 *
 * @param settings the settings in force for this launch
 * @param fromCommandLine the options given on the command line (or by environment) for this launch,
 *     e.g. {@code --schedule-interval}; the settings dialog says so next to their fields
 * @param locale the window's locale
 */
public record StartOptions(Backend.AppSettings settings, Set<String> fromCommandLine, Locale locale) {

    /** The command-line name of the option for the schedule interval. */
    public static final String SCHEDULE_INTERVAL = "--schedule-interval";
    /** The command-line name of the option for the foreground minimum interval. */
    public static final String FOREGROUND_MIN_INTERVAL = "--foreground-min-interval";
    /** The command-line name of the option for the server (with its account). */
    public static final String SERVER = "--server";
    /** Marks a start from a signed-in account ({@code accounts.json}, chosen by the command line). */
    public static final String ACCOUNT = "account";

    public StartOptions {
        Objects.requireNonNull(settings, "settings");
        fromCommandLine = Set.copyOf(fromCommandLine);
        Objects.requireNonNull(locale, "locale");
    }

    /** As given, with the system's language and nothing from the command line (tests, and no settings file). */
    public static StartOptions of(Backend.AppSettings settings) {
        return new StartOptions(settings, Set.of(), SystemLocale.current());
    }

    /**
     * Merges the command line ({@code cli}, with {@code given} naming the options it was given) and the
     * settings file's start options: the command line wins for what it gave.
     */
    public static StartOptions merge(Backend.AppSettings cli, Set<String> given, LaunchSettings file, Locale system) {
        Backend.AppSettings s = cli;
        var schedule =
                given.contains(SCHEDULE_INTERVAL) ? Optional.<java.time.Duration>empty() : file.scheduleInterval();
        var foreground = given.contains(FOREGROUND_MIN_INTERVAL)
                ? Optional.<java.time.Duration>empty()
                : file.foregroundMinInterval();
        s = new Backend.AppSettings(
                s.dataDir(),
                s.server(),
                s.user(),
                s.token(),
                s.leaseTtl(),
                s.http(),
                schedule.orElse(s.scheduleInterval()),
                foreground.orElse(s.foregroundMinInterval()),
                s.retry(),
                s.time(),
                s.dbOpenTimeout(),
                s.transport());
        return new StartOptions(s, given, file.language().locale(system));
    }

    /** Reads {@code settings.json} of the command line's data directory (an unreadable one counts as empty) and merges. */
    public static StartOptions read(Backend.AppSettings cli, Set<String> given) {
        LaunchSettings file =
                SettingsFile.peek(cli.dataDir()).map(UserSettings::launch).orElse(LaunchSettings.NONE);
        return merge(cli, given, file, SystemLocale.current());
    }
}
