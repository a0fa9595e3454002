package org.leasesync.sync;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunStatus;

/**
 * A key's newest run (highest epoch), as the recent-sync check ({@link RecentSyncGate}) reads it
 * from the shared database. Immutable.
 *
 * @param runId the run
 * @param key its task key
 * @param owner the owner that ran it (written form)
 * @param status its status; empty if the stored text is unrecognised
 * @param endedMonoNanos when it ended on the monotonic clock {@code monoClock}; empty while running,
 *     for runs closed by another holder's recovery and for runs of older versions
 * @param monoClock the id of that clock ({@link org.leasesync.lease.TimeSource#monotonicClockId()});
 *     empty when unknown: the end is then never compared with another process's clock
 */
public record NewestRun(
        String runId,
        TaskKey key,
        String owner,
        Optional<RunStatus> status,
        OptionalLong endedMonoNanos,
        Optional<String> monoClock) {

    /** @throws NullPointerException naming the missing field */
    public NewestRun {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(endedMonoNanos, "endedMonoNanos");
        Objects.requireNonNull(monoClock, "monoClock");
    }
}
