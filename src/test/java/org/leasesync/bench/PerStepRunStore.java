package org.leasesync.bench;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.leasesync.lease.Fence;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.RunStore;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/**
 * The trigger benchmark's reference: the same run store, but the start of a run goes step by step
 * (every read on its own connection, every write its own flushed commit): it forwards every
 * method except {@link RunStore#inOneTransaction} and {@link RunStore#highestEpoch}, whose defaults
 * run the work against this store and read the last run.
 */
final class PerStepRunStore implements RunStore {

    private final RunStore d;

    PerStepRunStore(RunStore delegate) {
        this.d = delegate;
    }

    @Override
    public void insertRun(
            Fence fence, String runId, TaskSource source, Stage stage, Instant now, Optional<String> recovery) {
        d.insertRun(fence, runId, source, stage, now, recovery);
    }

    @Override
    public void insertRun(
            Fence fence,
            String runId,
            TaskSource source,
            String triggerId,
            Stage stage,
            Instant now,
            Optional<String> recovery) {
        d.insertRun(fence, runId, source, triggerId, stage, now, recovery);
    }

    @Override
    public void enterStage(Fence fence, String runId, Stage stage, Instant now) {
        d.enterStage(fence, runId, stage, now);
    }

    @Override
    public void finishRun(Fence fence, String runId, RunStatus status, Optional<String> error, Instant now) {
        d.finishRun(fence, runId, status, error, now);
    }

    @Override
    public boolean closeAbandonedRun(Fence current, String oldRunId, RunStatus status, String note, Instant now) {
        return d.closeAbandonedRun(current, oldRunId, status, note, now);
    }

    @Override
    public boolean recordMergedTrigger(String runId, TaskSource source, Instant now) {
        return d.recordMergedTrigger(runId, source, now);
    }

    @Override
    public boolean recordMergedTrigger(String runId, String triggerId, TaskSource source, Instant now) {
        return d.recordMergedTrigger(runId, triggerId, source, now);
    }

    @Override
    public void saveCheckpoint(Fence fence, Checkpoint checkpoint) {
        d.saveCheckpoint(fence, checkpoint);
    }

    @Override
    public Optional<Checkpoint> checkpoint(TaskKey key) {
        return d.checkpoint(key);
    }

    @Override
    public List<Checkpoint> checkpoints() {
        return d.checkpoints();
    }

    @Override
    public Optional<RunRecord> runningRun(TaskKey key) {
        return d.runningRun(key);
    }

    @Override
    public Optional<RunRecord> lastRun(TaskKey key) {
        return d.lastRun(key);
    }

    @Override
    public Optional<RunRecord> run(String runId) {
        return d.run(runId);
    }

    @Override
    public List<RunRecord> history(TaskKey key, int limit) {
        return d.history(key, limit);
    }

    @Override
    public Optional<RunRecord> lastSucceeded(TaskKey key) {
        return d.lastSucceeded(key);
    }

    @Override
    public List<RunRecord> lastRunPerKey() {
        return d.lastRunPerKey();
    }

    @Override
    public int pruneHistory(TaskKey key, Instant now) {
        return d.pruneHistory(key, now);
    }
}
