package org.leasesync.registry;

import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link TaskRunner} reports at the end of a run.
 *
 * @param status never {@code running}
 * @param message a plain, user-facing reason (no stack traces); on success empty, or a note for
 *     the history (e.g. that the client downloaded everything again, and why)
 * @param retryAfterMillis for failures: a server-requested minimum delay before a retry, or -1
 */
public record RunOutcome(RunStatus status, Optional<String> message, long retryAfterMillis) {

    public RunOutcome {
        Objects.requireNonNull(status, "status");
        if (status == RunStatus.RUNNING) {
            throw new IllegalArgumentException("a run outcome cannot be 'running'");
        }
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

    public static RunOutcome cancelled(String message) {
        return new RunOutcome(RunStatus.CANCELLED, Optional.of(message), -1);
    }
}
