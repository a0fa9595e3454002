package org.leasesync.server.jobs;

import java.util.Objects;

/**
 * What one finished job run did, as this instance saw it: the one value per run that the log line
 * (and any metrics) are made of.
 *
 * @param job the job name
 * @param runId the run's id in {@code job_runs}
 * @param trigger what started it ({@code takeover}/{@code recovery} when it resumed a checkpoint)
 * @param slot the scheduled occurrence it ran for, or null (a manual run)
 * @param epoch the epoch (fencing token) of its lease
 * @param resumedFrom the run whose checkpoint it resumed, or null
 * @param result how it ended
 * @param processed rows processed, counted from the start of the occurrence (a resumed run includes
 *     what its predecessors processed)
 * @param batches batches this run committed
 * @param tookMillis how long this run took on this instance's monotonic clock, milliseconds
 * @param detail why it failed, was interrupted or lost its lease; null when it ended ok
 */
public record JobRunReport(
        String job,
        long runId,
        JobTrigger trigger,
        Long slot,
        long epoch,
        Long resumedFrom,
        JobResult result,
        long processed,
        int batches,
        long tookMillis,
        String detail) {

    public JobRunReport {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(result, "result");
    }

    /** One log line: {@code job prune-audit run 12 ok (schedule, slot 3, epoch 4): processed 120 in 3 batches, 35 ms}. */
    public String describe(String instanceId) {
        StringBuilder b = new StringBuilder("job ")
                .append(job)
                .append(" run ")
                .append(runId)
                .append(' ')
                .append(result.wire())
                .append(" (")
                .append(trigger.wire());
        if (resumedFrom != null) {
            b.append(" of run ").append(resumedFrom);
        }
        if (slot != null) {
            b.append(", slot ").append(slot);
        }
        b.append(", epoch ")
                .append(epoch)
                .append(", instance ")
                .append(instanceId)
                .append("): processed ")
                .append(processed)
                .append(" in ")
                .append(batches)
                .append(batches == 1 ? " batch, " : " batches, ")
                .append(tookMillis)
                .append(" ms");
        if (detail != null) {
            b.append(" — ").append(detail);
        }
        return b.toString();
    }
}
