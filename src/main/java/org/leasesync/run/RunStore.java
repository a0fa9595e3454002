package org.leasesync.run;

import java.time.Instant;
import java.util.Optional;
import org.leasesync.lease.Fence;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;

/**
 * Storage SPI for the coordinator's writes of runs, triggers and checkpoints, implemented by the
 * {@code store} package; the reads its decisions need (and that the status and history views use)
 * are {@link RunHistory}'s. Every write takes the run's {@link Fence} and commits only if it is still
 * current; otherwise it throws {@link LeaseLostException} and changes nothing (fencing: a run whose
 * lease was lost can write nothing).
 *
 * <p>Runs and checkpoints exist only for task keys: every method taking a {@link Fence} throws
 * {@link IllegalStateException}, naming the key, when it is the fence of a {@link JobKey}
 * ({@link Fence#taskKey()}).
 *
 * <p>Thread-safe; blocks on database I/O; throws {@link StoreException} when the database fails.
 */
public interface RunStore extends RunHistory {

    /**
     * Runs {@code work} with a view of this store whose reads and writes form one local transaction,
     * committed only if {@code fence} is still current (fenced like every write) and only if
     * {@code work} returns; if it throws, nothing of it is written. Used for the start of a run, so
     * that the checkpoint read, the recovery of an unfinished run, the run row and its first source
     * are one commit. Blocks on the database.
     *
     * <p>The default runs {@code work} against this store itself, one commit per write (for stores
     * without transactions).
     *
     * @param what a short description, used in messages
     * @return what {@code work} returned
     * @throws LeaseLostException if the fence is not current
     * @throws StoreException if the database fails
     */
    default <T> T inOneTransaction(Fence fence, String what, java.util.function.Function<RunStore, T> work) {
        return work.apply(this);
    }

    /**
     * Deletes old history of {@code key} as the store's retention allows (bounded; never a running
     * run, never the key's newest successful run). Called after a run of the key has ended, outside
     * the key's monitor, so no trigger waits for it. Blocks on the database.
     *
     * @return how many runs were deleted; the default keeps everything and returns 0
     * @throws StoreException if the database fails
     */
    default int pruneHistory(TaskKey key, Instant now) {
        return 0;
    }

    /** The highest epoch any run of the key was recorded with, 0 if it has none. */
    default long highestEpoch(TaskKey key) {
        return lastRun(key).map(RunRecord::epoch).orElse(0L);
    }

    /** Inserts a new run (status running, stage {@code stage}) with its first trigger, which has no id. */
    void insertRun(Fence fence, String runId, TaskSource source, Stage stage, Instant now, Optional<String> recovery);

    /**
     * Inserts a new run with its first trigger {@code triggerId}. A trigger id is recorded once in
     * the whole history: if it was recorded as merged into an earlier run (the same request joined
     * that run, then asked again and got the key), that record moves to this run, which is the one
     * that answers it. A store that keeps no trigger ids records the run as the method without one.
     */
    default void insertRun(
            Fence fence,
            String runId,
            TaskSource source,
            String triggerId,
            Stage stage,
            Instant now,
            Optional<String> recovery) {
        insertRun(fence, runId, source, stage, now, recovery);
    }

    /** Records that the run entered {@code stage}. */
    void enterStage(Fence fence, String runId, Stage stage, Instant now);

    /**
     * Ends the run with {@code status} (not {@code running}) and an optional plain message.
     */
    void finishRun(Fence fence, String runId, RunStatus status, Optional<String> error, Instant now);

    /**
     * Ends another (older, unfinished) run of the same key on behalf of the current holder, e.g.
     * after taking over from a crashed owner. Guarded by the current holder's fence.
     *
     * @return false if that run was not running any more (nothing changed)
     */
    boolean closeAbandonedRun(Fence current, String oldRunId, RunStatus status, String note, Instant now);

    /**
     * Records a trigger that joined a run already running (merged). Not fenced: the joining trigger
     * holds no lease; it only appends to the diagnosis trail.
     *
     * @return false if the run does not exist
     */
    boolean recordMergedTrigger(String runId, TaskSource source, Instant now);

    /**
     * Like {@link #recordMergedTrigger(String, TaskSource, Instant)}, idempotent by
     * {@code triggerId}: a trigger already recorded (with this run or any other) is not recorded
     * again, also when two processes record it at once. A store that keeps no trigger ids records
     * it as the method without one.
     *
     * @return false if the run does not exist; true if the trigger is recorded (now or before)
     */
    default boolean recordMergedTrigger(String runId, String triggerId, TaskSource source, Instant now) {
        return recordMergedTrigger(runId, source, now);
    }

    /** Writes the key's checkpoint (replacing the previous one). */
    void saveCheckpoint(Fence fence, Checkpoint checkpoint);
}
