package org.leasesync.run;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * The durable record of a key's last confirmed stage and position, read on recovery. Written only
 * through guarded writes, in the same local transaction as the data it describes (invariant 5,
 * checkpoints in the data's transaction: docs/architecture.md).
 *
 * @param key the task key
 * @param runId the run that wrote it
 * @param epoch the epoch under which it was written
 * @param stage the confirmed stage; empty when the stored text is unrecognised (then recovery asks)
 * @param stageText the stored stage text as is
 * @param pullCursor the server cursor after the last applied page, empty before the first pull
 * @param pushBatchId the outbox batch being pushed, empty when no push is in flight
 * @param idempotencyKey the key of the in-flight push batch, empty when none
 * @param pushChangeIds the change ids in the in-flight batch, in order
 * @param pushSentAt when the in-flight batch was first handed to the network, if it was
 * @param updatedAt when this checkpoint was written
 */
public record Checkpoint(
        TaskKey key,
        String runId,
        long epoch,
        Optional<Stage> stage,
        String stageText,
        Optional<String> pullCursor,
        Optional<String> pushBatchId,
        Optional<String> idempotencyKey,
        List<String> pushChangeIds,
        Optional<Instant> pushSentAt,
        Instant updatedAt) {

    public Checkpoint {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(runId, "runId");
        pushChangeIds = List.copyOf(pushChangeIds);
    }

    /** True when a push batch (with its idempotency key) is recorded as in flight. */
    public boolean hasPushInFlight() {
        return pushBatchId.isPresent() || idempotencyKey.isPresent() || !pushChangeIds.isEmpty();
    }
}
