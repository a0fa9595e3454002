package org.leasesync.run;

import java.util.Locale;
import java.util.Optional;

/**
 * The state of a run record. Only {@link #RUNNING} is unfinished.
 *
 * <p>{@link #SIGNED_OUT}: the sync server refused the account's session (HTTP 401: revoked, expired,
 * the user disabled or deleted). It is not a failure to retry: the same token would be refused again,
 * so no automatic retry follows; the local records and the outbox are kept, and the next run after
 * the user signed in again pushes them.
 */
public enum RunStatus {
    RUNNING("running"),
    SUCCEEDED("succeeded"),
    FAILED("failed"),
    NEEDS_ATTENTION("needs_attention"),
    CANCELLED("cancelled"),
    SIGNED_OUT("signed_out");

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
