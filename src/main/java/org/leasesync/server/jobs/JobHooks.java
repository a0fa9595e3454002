package org.leasesync.server.jobs;

/**
 * Test hooks into a job run: a point where tests make a run pause (so that its instance can be
 * killed or frozen mid-run) without any sleep in the job's code. Production uses {@link #NONE}.
 *
 * <p>Implementations are thread-safe; the hook is called on the thread running the job.
 */
@FunctionalInterface
public interface JobHooks {

    /** No hooks. */
    JobHooks NONE = (job, runId, batches) -> { };

    /**
     * Called after a batch of a run committed (with its checkpoint) and more batches follow. May
     * block; the run goes on when it returns.
     *
     * @param job the job name
     * @param runId the run's id
     * @param batches batches this run committed so far, {@code >= 1}
     * @throws InterruptedException if the waiting thread is interrupted: the run stops as interrupted
     */
    void afterBatch(String job, long runId, int batches) throws InterruptedException;
}
