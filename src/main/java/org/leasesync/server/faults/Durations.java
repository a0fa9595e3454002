package org.leasesync.server.faults;

import java.time.Duration;
import org.leasesync.duration.DurationGrammar;

/**
 * The durations of the server's command line and fault specs: {@link DurationGrammar}, the
 * grammar the client's options and settings use too. Stateless and thread-safe.
 */
public final class Durations {

    /** The accepted forms, for error messages. */
    public static final String ACCEPTED_FORMS = DurationGrammar.ACCEPTED_FORMS;

    private Durations() {}

    /**
     * Parses {@code text} into a non-negative duration.
     *
     * @throws IllegalArgumentException if {@code text} is null, not one of the accepted forms, or
     *     negative; the message names the text and the accepted forms
     */
    public static Duration parse(String text) {
        return DurationGrammar.parse(text);
    }
}
