package org.leasesync.run;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * An immutable snapshot of a running run, as shown to a trigger that joins it and to the UI.
 *
 * @param runId the run id
 * @param key the task key
 * @param epoch the lease epoch
 * @param owner the owner id as written
 * @param firstSource the trigger that started it
 * @param mergedSources triggers that joined it, in order
 * @param startedAt wall-clock start
 * @param stage the current stage, empty if unknown (e.g. a run of another process with a corrupt row)
 * @param progress a short progress text such as "pulled 120 records", may be empty
 * @param local whether the run executes in this process
 * @param followUpQueued whether one more run will follow this one
 * @param counts what the run has done so far (pages pulled, changes pushed of the push total)
 */
public record RunView(
        String runId,
        TaskKey key,
        long epoch,
        String owner,
        TaskSource firstSource,
        List<TaskSource> mergedSources,
        Instant startedAt,
        Optional<Stage> stage,
        String progress,
        boolean local,
        boolean followUpQueued,
        RunProgress counts) {

    public RunView {
        mergedSources = List.copyOf(mergedSources);
        progress = progress == null ? "" : progress;
        counts = counts == null ? RunProgress.NONE : counts;
    }

    /** A view with no counts yet ({@link RunProgress#NONE}). */
    public RunView(
            String runId,
            TaskKey key,
            long epoch,
            String owner,
            TaskSource firstSource,
            List<TaskSource> mergedSources,
            Instant startedAt,
            Optional<Stage> stage,
            String progress,
            boolean local,
            boolean followUpQueued) {
        this(
                runId,
                key,
                epoch,
                owner,
                firstSource,
                mergedSources,
                startedAt,
                stage,
                progress,
                local,
                followUpQueued,
                RunProgress.NONE);
    }

    /** A view of a stored run record (another process's run). */
    public static RunView of(RunRecord r) {
        return new RunView(
                r.runId(),
                r.key(),
                r.epoch(),
                r.owner(),
                r.firstSource(),
                r.mergedSources(),
                r.startedAt(),
                r.stage(),
                "",
                false,
                false);
    }

    RunView withStage(Stage s) {
        return new RunView(
                runId,
                key,
                epoch,
                owner,
                firstSource,
                mergedSources,
                startedAt,
                Optional.of(s),
                progress,
                local,
                followUpQueued,
                counts);
    }

    RunView withProgress(String p) {
        return new RunView(
                runId,
                key,
                epoch,
                owner,
                firstSource,
                mergedSources,
                startedAt,
                stage,
                p,
                local,
                followUpQueued,
                counts);
    }

    RunView withProgress(String p, RunProgress c) {
        return new RunView(
                runId, key, epoch, owner, firstSource, mergedSources, startedAt, stage, p, local, followUpQueued, c);
    }

    RunView withMerged(TaskSource s) {
        List<TaskSource> m = new java.util.ArrayList<>(mergedSources);
        m.add(s);
        return new RunView(
                runId, key, epoch, owner, firstSource, m, startedAt, stage, progress, local, followUpQueued, counts);
    }

    RunView withFollowUp(boolean queued) {
        return new RunView(
                runId,
                key,
                epoch,
                owner,
                firstSource,
                mergedSources,
                startedAt,
                stage,
                progress,
                local,
                queued,
                counts);
    }
}
