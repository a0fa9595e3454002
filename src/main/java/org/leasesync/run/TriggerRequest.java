package org.leasesync.run;

import java.util.Objects;
import org.leasesync.lease.TaskKey;

/**
 * A trigger asking the coordinator for a run.
 *
 * @param key the task key
 * @param source what asked
 * @param followUp if the key is already running, ask for exactly one more run after it
 *     (docs/architecture.md, "Vocabulary"); later triggers merge into that follow-up
 * @param checkAgain the user asked to re-check a run that needs attention: bypasses the
 *     needs-attention gate and resumes from the checkpoint (never a silent restart)
 * @param discardUnconfirmed the user chose to give up on confirming a push whose outcome is unknown:
 *     its entries stay in the outbox and are sent again under a new idempotency key; the server
 *     applies a change id at most once (protocol §5.1), so nothing is applied twice
 * @param triggerId this trigger's idempotency key in the run history: a run records it with its
 *     first source or as merged, once — submitting the same request again (a retry after a broken
 *     connection, asking again after a join) records nothing more. 1–64 characters; a random UUID
 *     unless given
 */
public record TriggerRequest(
        TaskKey key,
        TaskSource source,
        boolean followUp,
        boolean checkAgain,
        boolean discardUnconfirmed,
        String triggerId) {

    /** A request without discarding. */
    public TriggerRequest(TaskKey key, TaskSource source, boolean followUp, boolean checkAgain) {
        this(key, source, followUp, checkAgain, false);
    }

    /** A request with a new random trigger id. */
    public TriggerRequest(
            TaskKey key, TaskSource source, boolean followUp, boolean checkAgain, boolean discardUnconfirmed) {
        this(
                key,
                source,
                followUp,
                checkAgain,
                discardUnconfirmed,
                java.util.UUID.randomUUID().toString());
    }

    /** @throws IllegalArgumentException if {@code triggerId} is empty or longer than 64 characters */
    public TriggerRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(triggerId, "triggerId");
        if (triggerId.isEmpty() || triggerId.length() > 64) {
            throw new IllegalArgumentException("a trigger id must be 1-64 characters, got '" + triggerId + "'");
        }
    }

    /** A plain trigger: no follow-up, no check-again. */
    public static TriggerRequest of(TaskKey key, TaskSource source) {
        return new TriggerRequest(key, source, false, false);
    }
}
