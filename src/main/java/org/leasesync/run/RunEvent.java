package org.leasesync.run;

import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * An immutable event published by the coordinator to its listeners, on the thread that caused it
 * (a worker or the submitting thread). Listeners must not block; the UI hands events to its own
 * thread.
 *
 * @param kind what happened
 * @param key the task key
 * @param run the run's view after the event, if there is a running run
 * @param source the trigger involved, for started / joined / follow-up events
 * @param result the result, for finished events
 * @param message a plain text for skipped / needs-attention events
 */
public record RunEvent(
        Kind kind,
        TaskKey key,
        Optional<RunView> run,
        Optional<TaskSource> source,
        Optional<RunResult> result,
        Optional<String> message) {

    /** The event a submit result announces; empty for {@code Started} (it has its own STARTED event). */
    static Optional<RunEvent> from(SubmitResult r) {
        if (r instanceof SubmitResult.Joined j) {
            return Optional.of(new RunEvent(
                    Kind.JOINED,
                    j.key(),
                    Optional.of(j.running()),
                    Optional.of(j.source()),
                    Optional.empty(),
                    Optional.empty()));
        }
        if (r instanceof SubmitResult.FollowUpQueued f) {
            return Optional.of(new RunEvent(
                    Kind.FOLLOW_UP_QUEUED,
                    f.key(),
                    Optional.of(f.running()),
                    Optional.of(f.source()),
                    Optional.empty(),
                    Optional.empty()));
        }
        if (r instanceof SubmitResult.Skipped s) {
            return Optional.of(new RunEvent(
                    Kind.SKIPPED,
                    s.key(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(s.reason())));
        }
        if (r instanceof SubmitResult.Waiting w) {
            return Optional.of(new RunEvent(
                    Kind.SKIPPED,
                    w.key(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of("the sync server asked not to be contacted before " + w.until() + " (" + w.reason()
                            + ")")));
        }
        if (r instanceof SubmitResult.NeedsAttention n) {
            return Optional.of(new RunEvent(
                    Kind.NEEDS_ATTENTION,
                    n.key(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(n.reason())));
        }
        return Optional.empty();
    }

    /** Event kinds. */
    public enum Kind {
        STARTED,
        STAGE,
        PROGRESS,
        JOINED,
        FOLLOW_UP_QUEUED,
        FINISHED,
        SKIPPED,
        NEEDS_ATTENTION
    }
}
