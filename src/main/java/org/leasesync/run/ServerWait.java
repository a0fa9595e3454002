package org.leasesync.run;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A sync server's request not to contact it about a task key before a time: its {@code Retry-After}
 * on a {@code 429} or {@code 503} (RFC 9110 §10.2.3; docs/protocol.md §3). Immutable.
 *
 * @param until the wall-clock time before which no trigger may start a run of the key
 * @param askedAt the wall-clock time the wait was recorded; bounds the wait when the clock is set back
 * @param reason the failure that carried it, plain, for messages
 */
public record ServerWait(Instant until, Instant askedAt, String reason) {

    /** @throws IllegalArgumentException if {@code until} is before {@code askedAt} */
    public ServerWait {
        Objects.requireNonNull(until, "until");
        Objects.requireNonNull(askedAt, "askedAt");
        Objects.requireNonNull(reason, "reason");
        if (until.isBefore(askedAt)) {
            throw new IllegalArgumentException(
                    "a server wait cannot end (" + until + ") before it was asked (" + askedAt + ")");
        }
    }

    /**
     * Whether the wait still holds at {@code now}. A clock set back before {@code askedAt} does not
     * lengthen it: it then lasts at most its own length from {@code now}.
     *
     * @return the time it ends as seen from {@code now}, or null when it is over
     */
    public @Nullable Instant endsAt(Instant now) {
        Instant end = now.isBefore(askedAt) ? now.plus(Duration.between(askedAt, until)) : until;
        return now.isBefore(end) ? end : null;
    }
}
