package org.leasesync.run;

import java.util.Objects;

/**
 * Where a run came from, as recorded with it: the program that ran it and the sync server it talked
 * to. Together with the run's owner (which process), this lets the window tell a run of its own from
 * one a {@code leasesync sync} on the same data directory made against another server. Immutable.
 *
 * @param program what ran it, e.g. {@code leasesync window}, {@code leasesync sync}; 1-100 characters
 * @param server the sync server URL (or the list of instance URLs) as configured, for display;
 *     1-2000 characters
 */
public record RunOrigin(String program, String server) {

    /** Longest {@link #program}. */
    public static final int MAX_PROGRAM = 100;
    /** Longest {@link #server}. */
    public static final int MAX_SERVER = 2000;

    /** @throws IllegalArgumentException naming the blank or too long value */
    public RunOrigin {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(server, "server");
        if (program.isBlank() || program.length() > MAX_PROGRAM) {
            throw new IllegalArgumentException(
                    "a run's program must be 1-" + MAX_PROGRAM + " characters, got '" + program + "'");
        }
        if (server.isBlank() || server.length() > MAX_SERVER) {
            throw new IllegalArgumentException(
                    "a run's server must be 1-" + MAX_SERVER + " characters, got " + server.length());
        }
    }
}
