package org.leasesync.duration;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The grammar of a written duration, the same for every option, setting and fault spec:
 *
 * <ul>
 *   <li>a whole number of at most 12 digits, optionally followed by spaces, then a unit:
 *       {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} ({@code 250ms}, {@code 60s},
 *       {@code 5 s}, {@code 2h}, {@code 1d});
 *   <li>or an ISO-8601 duration ({@code PT60S}, {@code P1D}, {@code PT1M30S}).
 * </ul>
 *
 * <p>Letters may be upper or lower case; spaces around the text are ignored. A negative duration
 * ({@code PT-5S}) is refused. Stateless and thread-safe.
 */
public final class DurationGrammar {

    /** The accepted forms, for error messages and help texts. */
    public static final String ACCEPTED_FORMS = "250ms, 60s, 5m, 2h, 1d or ISO-8601 such as PT60S";

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private DurationGrammar() {}

    /**
     * Reads a duration.
     *
     * @throws IllegalArgumentException if {@code text} is null, not of the grammar, or negative;
     *     the message names the text and the accepted forms
     */
    public static Duration parse(String text) {
        String v = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        Duration d;
        try {
            d = Duration.parse(v.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use " + ACCEPTED_FORMS, e);
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException("'" + text + "' is a negative duration; use " + ACCEPTED_FORMS);
        }
        return d;
    }
}
