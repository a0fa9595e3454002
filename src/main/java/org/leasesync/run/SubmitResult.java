package org.leasesync.run;

import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * The coordinator's answer to a trigger. Contention is a value: joining a running run is a normal
 * outcome, not an exception.
 */
public sealed interface SubmitResult {

    /** The task key the trigger asked for. */
    TaskKey key();

    /** A new run was started with this trigger as its first source. */
    record Started(RunHandle handle) implements SubmitResult {
        @Override
        public TaskKey key() {
            return handle.key();
        }
    }

    /**
     * The key was already running (here or in another process); the trigger joined that run and was
     * recorded as merged into it (or into its queued follow-up).
     */
    record Joined(RunView running, TaskSource source) implements SubmitResult {
        @Override
        public TaskKey key() {
            return running.key();
        }
    }

    /**
     * A manual trigger joined a running run and asked for one more run after it. {@code alreadyQueued}
     * is true when a follow-up had been queued before and this trigger merged into it.
     */
    record FollowUpQueued(RunView running, TaskSource source, boolean alreadyQueued) implements SubmitResult {
        @Override
        public TaskKey key() {
            return running.key();
        }
    }

    /**
     * Nothing was started: the sync server asked not to be contacted about the key before
     * {@code until} ({@code Retry-After} on a {@code 429} or {@code 503}, {@link ServerWait}). Every
     * trigger gets this until then; the caller says when it may try again.
     *
     * @param reason the failure that carried the wait, plain
     */
    record Waiting(TaskKey key, java.time.Instant until, String reason) implements SubmitResult {}

    /** Nothing was started, for a reason that is not a problem (e.g. recovery found the work done). */
    record Skipped(TaskKey key, String reason) implements SubmitResult {}

    /**
     * The key needs attention (fail closed): its last run ended in an unknown state. Nothing runs
     * until the user checks again or discards.
     */
    record NeedsAttention(TaskKey key, String reason, Optional<RunRecord> run) implements SubmitResult {}
}
