package org.leasesync.server.jobs;

/**
 * One run of a job as stored ({@code job_runs}). Immutable.
 *
 * @param runId the run's id
 * @param job the job name
 * @param slot the scheduled occurrence it ran for, or null (a manual run, or one that resumed a manual run)
 * @param trigger what started it
 * @param instanceId the server instance that ran it
 * @param ownerId its lease owner id
 * @param epoch the epoch (fencing token) of its lease
 * @param resumedFrom the run whose checkpoint it resumed, or null
 * @param startedAtMs when it began, epoch milliseconds of its instance's clock
 * @param endedAtMs when it ended, or null while {@code running}
 * @param result {@code running}, {@code ok}, {@code failed} or {@code interrupted}
 * @param processed rows processed from the start of the occurrence
 * @param detail why it failed or was interrupted, or null
 */
public record JobRun(
        long runId,
        String job,
        Long slot,
        JobTrigger trigger,
        String instanceId,
        String ownerId,
        long epoch,
        Long resumedFrom,
        long startedAtMs,
        Long endedAtMs,
        JobResult result,
        long processed,
        String detail) {}
