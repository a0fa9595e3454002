package org.leasesync.run;

import java.util.List;
import java.util.Optional;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;

/**
 * The recorded runs and checkpoints, read-only: what the status cards, the history views, the
 * command line's {@code status} and {@code history} and the coordinator's decisions read. The writes
 * are {@link RunStore}'s (which extends this interface); a caller that only shows history depends on
 * this one, so it cannot write a run by mistake.
 *
 * <p>Thread-safe; every method blocks on the database and throws {@link StoreException} when it
 * fails. Empty means "no such run or checkpoint", never a failure.
 */
public interface RunHistory {

    /** The key's checkpoint, or empty if none was ever written. Corrupt stage text is kept as text. */
    Optional<Checkpoint> checkpoint(TaskKey key);

    /** All checkpoints, ordered by key. */
    List<Checkpoint> checkpoints();

    /** The key's newest run with status {@code running}, if any. */
    Optional<RunRecord> runningRun(TaskKey key);

    /** The key's newest run (by epoch, then start time: epochs only grow, wall clocks may not), if any. */
    Optional<RunRecord> lastRun(TaskKey key);

    /** A run by id. */
    Optional<RunRecord> run(String runId);

    /**
     * The key's runs, newest first, at most {@code limit}.
     *
     * @throws IllegalArgumentException if {@code limit} is below 1
     */
    List<RunRecord> history(TaskKey key, int limit);

    /** The key's newest run that ended {@code succeeded}, if any. */
    Optional<RunRecord> lastSucceeded(TaskKey key);

    /** The newest run of every key that has runs, ordered by key. */
    List<RunRecord> lastRunPerKey();
}
