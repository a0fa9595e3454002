package org.leasesync.run;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.leasesync.lease.TaskKey;

/**
 * What asked for a run. The source never takes part in deduplication (that is by {@link TaskKey}
 * only); it is recorded with every trigger for diagnosis (docs/architecture.md, "Vocabulary").
 */
public enum TaskSource {
    SCHEDULE("schedule"),
    FOREGROUND("foreground"),
    MANUAL("manual"),
    RETRY("retry"),
    RECOVERY("recovery"),
    /** A local edit was saved (the window syncs its key shortly after the last save). */
    EDIT("edit");

    private final String wireName;

    TaskSource(String wireName) {
        this.wireName = wireName;
    }

    /** The stable lower-case name, e.g. {@code manual}. */
    public String wireName() {
        return wireName;
    }

    /**
     * Parses a wire name.
     *
     * @throws IllegalArgumentException if {@code text} is not a known source (the message names it)
     */
    public static TaskSource parse(String text) {
        if (text != null) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            for (TaskSource s : values()) {
                if (s.wireName.equals(t)) {
                    return s;
                }
            }
        }
        throw new IllegalArgumentException("unknown trigger source '" + text + "'; expected one of "
                + Arrays.stream(values()).map(TaskSource::wireName).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return wireName;
    }
}
