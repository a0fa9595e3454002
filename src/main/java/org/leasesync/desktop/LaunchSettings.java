package org.leasesync.desktop;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The start options the settings dialog keeps in {@code settings.json}, so that the window started
 * with no flags (the menu entry) uses them. A flag given on the command line (or its environment
 * variable) wins over the file for that launch. Empty means "not set": the command line's default.
 * The server and account are not here: they are the signed-in accounts ({@code accounts.json}, the
 * token in the keyring), never a setting.
 *
 * <p>Immutable; validated in the constructor with the same ranges as the command line.
 *
 * @param scheduleInterval the timer trigger's interval, at least 1 s
 * @param foregroundMinInterval no foreground sync within this of a key's last success, not negative
 * @param language the window's language
 */
public record LaunchSettings(
        Optional<Duration> scheduleInterval, Optional<Duration> foregroundMinInterval, Language language) {

    /** Nothing set. */
    public static final LaunchSettings NONE = new LaunchSettings(Optional.empty(), Optional.empty(), Language.SYSTEM);

    /** The shortest schedule interval (as {@code --schedule-interval}). */
    public static final Duration MIN_SCHEDULE_INTERVAL = Duration.ofSeconds(1);

    /** @throws IllegalArgumentException naming the setting and the bad value */
    public LaunchSettings {
        Objects.requireNonNull(scheduleInterval, "scheduleInterval");
        Objects.requireNonNull(foregroundMinInterval, "foregroundMinInterval");
        Objects.requireNonNull(language, "language");
        scheduleInterval.ifPresent(d -> {
            if (d.compareTo(MIN_SCHEDULE_INTERVAL) < 0) {
                throw new IllegalArgumentException("schedule interval must be at least 1s, got " + d);
            }
        });
        foregroundMinInterval.ifPresent(d -> {
            if (d.isNegative()) {
                throw new IllegalArgumentException("foreground minimum interval must not be negative, got " + d);
            }
        });
    }
}
