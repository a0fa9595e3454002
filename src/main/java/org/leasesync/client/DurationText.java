package org.leasesync.client;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The written form of a duration setting: {@code 250ms}, {@code 60s}, {@code 5m}, {@code 2h},
 * {@code 1d}, or ISO-8601 ({@code PT60S}). Used by the command line (through its picocli converter)
 * and the window alike. Stateless and thread-safe.
 */
public final class DurationText {

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private DurationText() {
    }

    /**
     * Reads a duration.
     *
     * @throws IllegalArgumentException naming the bad text and the accepted forms
     */
    public static Duration parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
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
        if (v.startsWith("pt") || v.startsWith("p")) {
            try {
                return Duration.parse(v.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                // fall through to the message below
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not a duration; use e.g. 250ms, 60s, 5m, 2h, 1d or PT60S");
    }

    /** Formats a duration the way {@link #parse} reads it (e.g. {@code 60s}, {@code 250ms}). */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
