package org.leasesync.cli;

import java.time.Duration;
import org.leasesync.client.DurationText;
import picocli.CommandLine;

/**
 * picocli's reader of a duration option: {@code 250ms}, {@code 60s}, {@code 5m}, {@code 2h}, {@code 1d}, or
 * ISO-8601 ({@code PT60S}), as {@link DurationText} reads them. Stateless and thread-safe.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        try {
            return DurationText.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** @see DurationText#parse(String) */
    public static Duration parse(String value) {
        return DurationText.parse(value);
    }

    /** @see DurationText#format(Duration) */
    public static String format(Duration d) {
        return DurationText.format(d);
    }
}
