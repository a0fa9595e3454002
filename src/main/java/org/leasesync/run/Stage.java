package org.leasesync.run;

import java.util.Locale;
import java.util.Optional;

/** Where a run is: {@code pulling}, {@code pushing} or {@code done} (docs/architecture.md, "Vocabulary"). */
public enum Stage {
    PULLING("pulling"),
    PUSHING("pushing"),
    DONE("done");

    private final String wireName;

    Stage(String wireName) {
        this.wireName = wireName;
    }

    /** The stable lower-case name stored in rows. */
    public String wireName() {
        return wireName;
    }

    /**
     * Parses a stored stage name. Unknown text is not an error here but an empty result, so that
     * callers can fail closed (recovery decision {@code ask}) instead of crashing.
     *
     * @return the stage, or empty if {@code text} is null or not a known stage name
     */
    public static Optional<Stage> tryParse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (Stage s : values()) {
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
