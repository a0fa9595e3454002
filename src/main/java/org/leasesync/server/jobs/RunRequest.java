package org.leasesync.server.jobs;

import java.util.Objects;

/**
 * The answer to a manual run request ({@code POST /v1/admin/jobs/{name}/run},
 * {@link JobScheduler#requestRun}): this instance got the job's lease and started a run, or another
 * holder has it and the request joined that (the design's "join": no second run).
 */
public sealed interface RunRequest permits RunRequest.Started, RunRequest.Joined {

    /** The job name. */
    String job();

    /**
     * A run started on this instance; it goes on in the background.
     *
     * @param trigger {@code manual}, or {@code takeover}/{@code recovery} when it resumes an
     *     unfinished run's checkpoint (that run is then finished first)
     * @param resumedFrom the run it resumes, or null
     */
    record Started(String job, long runId, JobTrigger trigger, long epoch, String instanceId, Long resumedFrom)
            implements RunRequest {
        public Started {
            Objects.requireNonNull(job, "job");
            Objects.requireNonNull(trigger, "trigger");
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * The job's lease is held (by another instance, or by a run of this one): the request joined it.
     *
     * @param holderOwner the lease's owner id
     * @param holderInstanceId the server instance holding it, if it recorded itself under this epoch, else null
     * @param epoch the lease's epoch
     * @param running the holder's run under this epoch, if it has one yet, else null
     */
    record Joined(String job, String holderOwner, String holderInstanceId, long epoch, JobRun running)
            implements RunRequest {
        public Joined {
            Objects.requireNonNull(job, "job");
        }
    }
}
