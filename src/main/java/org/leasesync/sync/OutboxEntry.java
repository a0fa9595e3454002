package org.leasesync.sync;

import java.time.Instant;
import java.util.Objects;

/**
 * A local edit waiting to be pushed. It leaves the outbox only when the server confirms it
 * (invariant 9, nothing is lost: docs/architecture.md). Immutable: a second edit of the same record is a
 * second entry.
 *
 * @param seq the local order
 * @param changeId client-generated, unique, sent with the push; the server applies a change id at most once
 * @param recordId the record
 * @param baseVersion the server version the edit was based on (0 = new record)
 * @param deleted whether the edit deletes the record
 * @param payloadJson the new payload, a JSON object as text
 * @param createdAt when the user made the edit
 */
public record OutboxEntry(
        long seq,
        String changeId,
        String recordId,
        long baseVersion,
        boolean deleted,
        String payloadJson,
        Instant createdAt) {
    public OutboxEntry {
        Objects.requireNonNull(changeId, "changeId");
        Objects.requireNonNull(recordId, "recordId");
        Objects.requireNonNull(payloadJson, "payloadJson");
        if (baseVersion < 0) {
            throw new IllegalArgumentException("baseVersion must be >= 0, got " + baseVersion);
        }
    }
}
