package org.leasesync.run;

import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link TaskRunner} reports at the end of a run.
 *
 * @param status never {@code running}
 * @param message a plain, user-facing reason (no stack traces); on success empty, or a note for
 *     the history (e.g. that the client downloaded everything again, and why)
 * @param retryAfterMillis for failures: a server-requested minimum delay before a retry, or -1
 * @param epochAtLeast for failures: the lowest epoch the key's next run may hold, 0 for none — set when
 *     the sync server has seen a newer fencing token from this device than any epoch its lease table
 *     remembers (the local database went back in time); the coordinator raises the lease's epoch
 *     before releasing it, if the lease is still this run's
 */
public record RunOutcome(RunStatus status, Optional<String> message, long retryAfterMillis, long epochAtLeast) {

    public RunOutcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(message, "message");
        if (status == RunStatus.RUNNING) {
            throw new IllegalArgumentException("a run outcome cannot be 'running'");
        }
        if (epochAtLeast < 0) {
            throw new IllegalArgumentException("epochAtLeast must be >= 0, got " + epochAtLeast);
        }
    }

    /** Without an epoch floor. */
    public RunOutcome(RunStatus status, Optional<String> message, long retryAfterMillis) {
        this(status, message, retryAfterMillis, 0);
    }

    /**
     * The run failed because the sync server has seen a fencing token from this device at least as
     * high as the run's epoch: either another run took the key over (then nothing is raised), or
     * this device's lease table went back in time, and the key's next run must hold at least
     * {@code epochAtLeast}.
     */
    public static RunOutcome behindServer(String message, long epochAtLeast) {
        return new RunOutcome(RunStatus.FAILED, Optional.of(message), -1, epochAtLeast);
    }

    public static RunOutcome succeeded() {
        return new RunOutcome(RunStatus.SUCCEEDED, Optional.empty(), -1);
    }

    /** Succeeded, with a plain note the history shows (the run did something the user should know). */
    public static RunOutcome succeeded(String note) {
        return new RunOutcome(RunStatus.SUCCEEDED, Optional.of(note), -1);
    }

    public static RunOutcome failed(String message) {
        return new RunOutcome(RunStatus.FAILED, Optional.of(message), -1);
    }

    public static RunOutcome failed(String message, long retryAfterMillis) {
        return new RunOutcome(RunStatus.FAILED, Optional.of(message), retryAfterMillis);
    }

    public static RunOutcome needsAttention(String message) {
        return new RunOutcome(RunStatus.NEEDS_ATTENTION, Optional.of(message), -1);
    }

    /**
     * The sync server no longer accepts the account's session: the run stopped, nothing is retried
     * automatically, and the user must sign in again ({@link RunStatus#SIGNED_OUT}).
     */
    public static RunOutcome signedOut(String message) {
        return new RunOutcome(RunStatus.SIGNED_OUT, Optional.of(message), -1);
    }

    public static RunOutcome cancelled(String message) {
        return new RunOutcome(RunStatus.CANCELLED, Optional.of(message), -1);
    }
}
