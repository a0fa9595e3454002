package org.leasesync.sync;

import java.util.Optional;

/**
 * What the server knows about an idempotency key (the query-before-retry answer).
 *
 * @param state completed, in progress, or unknown (never received, or forgotten after the retention period)
 * @param response the stored response when completed with 200
 * @param statusCode the stored HTTP status when completed
 */
public record PushStatus(State state, Optional<PushResponse> response, int statusCode) {

    /** The states. */
    public enum State {
        COMPLETED,
        IN_PROGRESS,
        UNKNOWN
    }
}
