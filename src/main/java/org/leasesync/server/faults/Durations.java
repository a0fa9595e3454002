package org.leasesync.server.faults;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the human duration forms accepted on the command line and in fault specs.
 *
 * <p>Accepted: a non-negative integer followed by {@code ms}, {@code s}, {@code m} or {@code h}
 * ({@code 250ms}, {@code 2s}, {@code 1m}, {@code 24h}), or an ISO-8601 duration
 * ({@code PT2S}, {@code P1D}). Stateless and thread-safe.
 */
public final class Durations {

    /** The accepted forms, for error messages. */
    public static final String ACCEPTED_FORMS = "250ms, 2s, 1m, 1h, 1d or ISO-8601 such as PT2S";

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * Parses {@code text} into a non-negative duration.
     *
     * @throws IllegalArgumentException if {@code text} is null, not one of the accepted forms, or
     *     negative; the message names the text and the accepted forms
     */
    public static Duration parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("duration is missing; use " + ACCEPTED_FORMS);
        }
        String t = text.trim();
        Matcher m = SIMPLE.matcher(t);
        Duration d;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } else {
            try {
                d = Duration.parse(t);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "bad duration '" + text + "'; use " + ACCEPTED_FORMS, e);
            }
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(
                    "duration '" + text + "' is negative; use " + ACCEPTED_FORMS);
        }
        return d;
    }
}
