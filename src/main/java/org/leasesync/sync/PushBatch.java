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
 * @param entries the entries, in outbox order; at least one, except in a {@link #probe}
 */
public record PushBatch(String batchId, String idempotencyKey, List<OutboxEntry> entries) {
    public PushBatch {
        Objects.requireNonNull(batchId, "batchId");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        entries = List.copyOf(entries);
        if (entries.isEmpty() && !batchId.equals(PROBE)) {
            throw new IllegalArgumentException("a push batch needs at least one entry");
        }
    }

    private static final String PROBE = "probe";

    /**
     * A push of no entries under a new key, never recorded in the outbox or a checkpoint: what the
     * push stage sends to learn whether a refusal naming no entry was about the request (the probe is
     * refused too) or about the entry it carried (the probe is accepted). It applies nothing.
     */
    public static PushBatch probe(String idempotencyKey) {
        return new PushBatch(PROBE, idempotencyKey, List.of());
    }

    /** The change ids in order. */
    public List<String> changeIds() {
        return entries.stream().map(OutboxEntry::changeId).toList();
    }
}
