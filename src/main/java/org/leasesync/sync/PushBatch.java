package org.leasesync.sync;

import java.util.List;
import java.util.Objects;

/**
 * A batch of outbox entries sent as one push. The same idempotency key is reused for every resend
 * of this batch, always with the identical body, and never for another batch (Stripe's idempotent
 * requests; IETF draft-ietf-httpapi-idempotency-key-header).
 *
 * @param batchId local id of the batch
 * @param idempotencyKey the {@code Idempotency-Key} header value
 * @param entries the entries, in outbox order, at least one
 */
public record PushBatch(String batchId, String idempotencyKey, List<OutboxEntry> entries) {
    public PushBatch {
        Objects.requireNonNull(batchId, "batchId");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        entries = List.copyOf(entries);
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a push batch needs at least one entry");
        }
    }

    /** The change ids in order. */
    public List<String> changeIds() {
        return entries.stream().map(OutboxEntry::changeId).toList();
    }
}
