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
    JobHooks NONE = (job, runId, batches) -> {};

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

    /**
     * {@code hooks}, plus the test pause of {@code serve --job-pause}: runs of the named jobs block
     * after their first batch until {@code release} opens (the server closing).
     */
    static JobHooks pausing(JobHooks hooks, java.util.Set<String> jobs, java.util.concurrent.CountDownLatch release) {
        if (jobs.isEmpty()) {
            return hooks;
        }
        return (job, runId, batches) -> {
            hooks.afterBatch(job, runId, batches);
            if (batches == 1 && jobs.contains(job)) {
                org.slf4j.LoggerFactory.getLogger(JobScheduler.class)
                        .info(
                                "job {} run {} pauses after its first batch until the server stops (--job-pause)",
                                job,
                                runId);
                release.await();
            }
        };
    }
}
