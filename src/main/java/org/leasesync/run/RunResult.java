package org.leasesync.run;

import java.time.Instant;
import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * How a run ended.
 *
 * @param runId the run
 * @param key the task key
 * @param status never {@code running}
 * @param message a plain reason for failed / needs-attention / cancelled runs; for a succeeded run
 *     empty or a note for the user (see {@link RunOutcome#succeeded(String)})
 * @param endedAt wall-clock end
 * @param recorded false if the final status could not be written because the lease was lost (the
 *     record is then left for the next holder's recovery)
 */
public record RunResult(
        String runId, TaskKey key, RunStatus status, Optional<String> message, Instant endedAt, boolean recorded) {}
