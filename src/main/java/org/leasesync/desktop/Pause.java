package org.leasesync.desktop;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * The user paused syncing: until a wall-clock instant, or until they resume. While a pause is in
 * force, timer and foreground triggers are skipped; {@code Sync now} still runs.
 *
 * <p>Immutable.
 *
 * @param until when the pause ends by itself; empty = only when the user resumes
 */
public record Pause(Optional<Instant> until) {

    public Pause {
        Objects.requireNonNull(until, "until");
    }

    /** The choices the tray and the window offer. */
    public enum Option {
        /** One hour from now. */
        ONE_HOUR,
        /** Until the next local midnight (the start of tomorrow in the user's time zone). */
        UNTIL_TOMORROW,
        /** Until the user resumes. */
        UNTIL_RESUMED;

        /** The pause this option means when chosen at {@code now} in {@code zone}. */
        public Pause from(Instant now, ZoneId zone) {
            return switch (this) {
                case ONE_HOUR ->
                    new Pause(Optional.of(now.plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS)));
                case UNTIL_TOMORROW ->
                    new Pause(Optional.of(now.atZone(zone)
                            .toLocalDate()
                            .plusDays(1)
                            .atStartOfDay(zone)
                            .toInstant()));
                case UNTIL_RESUMED -> new Pause(Optional.empty());
            };
        }
    }

    /** A pause that lasts until the user resumes. */
    public static Pause untilResumed() {
        return new Pause(Optional.empty());
    }

    /** Whether the pause is still in force at {@code now}. */
    public boolean activeAt(Instant now) {
        return until.isEmpty() || now.isBefore(until.get());
    }
}
