package org.leasesync.run;

import org.leasesync.lease.LeaseLostException;

/**
 * The work of one run, implemented by the sync layer. Called on a worker thread with the lease held.
 * Must call {@link RunContext#fence()} before every write and stop promptly when it throws.
 */
@FunctionalInterface
public interface TaskRunner {

    /**
     * Runs the task.
     *
     * @return how it ended (never {@code running})
     * @throws LeaseLostException when the lease was lost; the coordinator records it
     * @throws Exception anything else is recorded as a failure with a plain message
     */
    RunOutcome run(RunContext context) throws Exception;
}
