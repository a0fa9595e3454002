package org.leasesync.lease;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The data domain of a task. Adding a scope is a code change (docs/architecture.md, "Vocabulary").
 *
 * <p>Each constant has a stable wire name ({@link #wireName()}) used in task keys, SQL rows, the
 * sync protocol's paths and the CLI.
 */
public enum Scope {
    COURSE_SYNC("course_sync"),
    MESSAGE_SYNC("message_sync"),
    BACKUP("backup");

    private final String wireName;

    Scope(String wireName) {
        this.wireName = wireName;
    }

    /** The stable lower-case name, e.g. {@code course_sync}. */
    public String wireName() {
        return wireName;
    }

    /**
     * Parses a wire name.
     *
     * @throws IllegalArgumentException if {@code text} is null or not one of the wire names; the
     *     message names the bad value and the accepted ones
     */
    public static Scope parse(String text) {
        if (text != null) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            for (Scope s : values()) {
                if (s.wireName.equals(t)) {
                    return s;
                }
            }
        }
        throw new IllegalArgumentException("unknown scope '" + text + "'; expected one of " + names());
    }

    /** The accepted wire names, comma separated, for messages. */
    public static String names() {
        return Arrays.stream(values()).map(Scope::wireName).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return wireName;
    }
}
