package org.leasesync.server.demo;

import java.util.Locale;
import org.leasesync.server.ReferenceServer;

/** What a new reference server puts into its database at start. */
public enum Seed {
    /**
     * Users {@code alice} and {@code bob} with demo records in every scope, and the admin account
     * {@code admin}, each with a random password (idempotent).
     */
    DEMO,
    /** Nothing; accounts come from {@code leasesync users add} (tests: {@link ReferenceServer#tokenFor(String)}). */
    NONE;

    /**
     * Parses {@code demo} or {@code none} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static Seed parse(String text) {
        if (text != null) {
            for (Seed s : values()) {
                if (s.name().equalsIgnoreCase(text.trim())) {
                    return s;
                }
            }
        }
        throw new IllegalArgumentException("bad seed '" + text + "'; use demo or none");
    }

    /** The command-line spelling, e.g. {@code demo}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
