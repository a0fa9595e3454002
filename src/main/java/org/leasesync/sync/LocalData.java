package org.leasesync.sync;

import java.util.List;
import java.util.Optional;
import org.leasesync.lease.Fence;
import org.leasesync.lease.TaskKey;

/**
 * The local records, outbox and checkpoint, as the worker writes them. Implemented by the
 * {@code store} package. Every write takes the run's {@link Fence}, touches only the fence's user
 * and scope, writes the checkpoint in the same transaction as the data it describes, and commits
 * only if the fence is current (else {@link org.leasesync.lease.LeaseLostException}).
 *
 * <p>Thread-safe; blocks on the database.
 */
public interface LocalData {

    /**
     * The key's pending outbox entries, oldest first, at most {@code limit}, and fewer when together
     * they would make a push body of more than about 1 MiB (at least one entry). Only the oldest
     * unconfirmed edit of each record is eligible; an entry in conflict holds back the later edits
     * of its record, a rejected one does not.
     */
    List<OutboxEntry> pendingOutbox(TaskKey key, int limit);

    /**
     * How many of the key's outbox entries wait to be pushed (all pending entries, also those held back
     * behind an earlier edit of their record) — the push total a progress bar counts against.
     */
    int pendingCount(TaskKey key);

    /** Pending entries by change id, in the given order; missing ids are left out. */
    List<OutboxEntry> outboxEntries(TaskKey key, List<String> changeIds);

    /** Applies a pulled page and moves the checkpoint to (pulling, {@code nextCursor}). */
    void applyPullPage(Fence fence, String runId, PullPage page);

    /**
     * Records a batch as in flight — checkpoint (pushing, batch id, idempotency key, change ids) —
     * before it is sent.
     */
    void beginPush(Fence fence, String runId, PushBatch batch);

    /**
     * Applies the server's confirmed answer: applied entries leave the outbox and update the local
     * records; conflicting entries stay, marked as conflicts with the server's version; the
     * checkpoint's in-flight batch is cleared; the answer's position, if any, becomes the key's push
     * position. One transaction, serialised with saving an edit of the same records.
     */
    void confirmPush(Fence fence, String runId, PushBatch batch, PushResponse response);

    /**
     * Sets {@code entry} aside as rejected with {@code reason} (the server refuses it for good, or it
     * cannot be sent at all): it stays in the outbox, shown to the user with the reason, until they
     * discard it or send it again, and it no longer holds back the entries behind it. The checkpoint's
     * in-flight batch is cleared (nothing of it was applied). One transaction.
     *
     * @return false if the entry was no longer pending (nothing changed but the checkpoint)
     */
    boolean rejectEntry(Fence fence, String runId, OutboxEntry entry, String reason);

    /** Moves the checkpoint to stage {@code done}. */
    void markDone(Fence fence, String runId);

    /**
     * The server refused the saved cursor (its data went back, was replaced, or purged deletions the
     * device had not seen): starts a full download in one transaction — keeps a copy of the key's
     * local records (unless a download begun earlier is still unfinished, whose copy stays), drops
     * the records, the cursor and the push position, so the next pull downloads everything. The
     * outbox is kept: pending edits are pushed later (and reported as conflicts if they no longer
     * fit), never dropped.
     *
     * @param reason the server's reason ({@link ResyncSummary#WENT_BACK}, ...), or empty
     */
    void resetForResync(Fence fence, String runId, String reason);

    /**
     * Ends a full download once its last page is applied: compares the records with the copy kept
     * when it began, makes a conflict of every edit made before it that is based on a version now
     * holding other content on the server (and forgets an in-flight push holding such an edit: its
     * change ids keep it from being applied twice), and drops the copy. One transaction.
     *
     * @return what changed, or empty if no full download was under way
     */
    Optional<ResyncSummary> finishResync(Fence fence, String runId);

    /** The position of the key's latest applied push ({@link PushResponse#position()}), if any. */
    Optional<String> pushedPosition(TaskKey key);

    /**
     * Forgets the push batch recorded as in flight (the user discarded it): its entries stay in the
     * outbox and are pushed again under a new key. Checkpoint only; one transaction.
     */
    void discardInFlight(Fence fence, String runId);

    /** The pull cursor saved for the key, if any. */
    Optional<String> pullCursor(TaskKey key);
}
