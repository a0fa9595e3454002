package org.leasesync.client;

import java.time.Duration;
import org.leasesync.duration.DurationGrammar;

/**
 * The written form of a duration setting, read by {@link DurationGrammar} (the grammar of the
 * command line, the window and the server alike) and written in its shortest unit. Stateless and
 * thread-safe.
 */
public final class DurationText {

    private DurationText() {}

    /**
     * Reads a duration: {@link DurationGrammar#parse}.
     *
     * @throws IllegalArgumentException naming the bad text and the accepted forms
     */
    public static Duration parse(String value) {
        return DurationGrammar.parse(value);
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
