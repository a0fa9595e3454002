package org.leasesync.run;

import java.util.Locale;
import java.util.Optional;

/** The state of a run record. Only {@link #RUNNING} is unfinished. */
public enum RunStatus {
    RUNNING("running"),
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    NEEDS_ATTENTION("needs_attention"),
    CANCELLED("cancelled");

    private final String wireName;

    RunStatus(String wireName) {
        this.wireName = wireName;
    }

    /** The stable lower-case name stored in rows. */
    public String wireName() {
        return wireName;
    }

    /** Whether the run has ended (anything but {@code running}). */
    public boolean isFinished() {
        return this != RUNNING;
    }

    /** Parses a stored name; empty for unknown text so callers can fail closed. */
    public static Optional<RunStatus> tryParse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (RunStatus s : values()) {
            if (s.wireName.equals(t)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return wireName;
    }
}
