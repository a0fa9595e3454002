package org.leasesync.sync;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The server's answer to a push: one result per change, in any order.
 *
 * @param results the per-change results
 * @param position where the push left the server's history of this user and scope (protocol
 *     {@code position}, opaque): present when the push applied a change and the server gives one.
 *     Sent back with later pulls, so that a server restored to before this push says so.
 */
public record PushResponse(List<PushResult> results, Optional<String> position) {
    public PushResponse {
        results = List.copyOf(results);
        Objects.requireNonNull(position, "position");
    }

    /** An answer without a position. */
    public PushResponse(List<PushResult> results) {
        this(results, Optional.empty());
    }
}
