package org.leasesync.registry;

import java.util.Optional;

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
public record RunEvent(Kind kind, TaskKey key, Optional<RunView> run, Optional<TaskSource> source,
                       Optional<RunResult> result, Optional<String> message) {

    /** Event kinds. */
    public enum Kind { STARTED, STAGE, PROGRESS, JOINED, FOLLOW_UP_QUEUED, FINISHED, SKIPPED, NEEDS_ATTENTION }
}
