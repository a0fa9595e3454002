package org.leasesync.run;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * One execution of a task key as stored. Immutable.
 *
 * @param runId unique id
 * @param key the task key
 * @param epoch the lease epoch the run held
 * @param owner the process that ran it
 * @param firstSource the trigger that started it
 * @param mergedSources triggers that joined it afterwards, in arrival order
 * @param startedAt wall-clock start
 * @param endedAt wall-clock end, empty while running
 * @param stage the last stage entered; empty if the stored text is unrecognised (corrupt)
 * @param stageText the stored stage text as is, for diagnosis
 * @param status the status; empty if the stored text is unrecognised (corrupt)
 * @param statusText the stored status text as is
 * @param error a plain error message for failed / needs-attention runs; for a succeeded run, its
 *     note if it has one ({@link RunOutcome#succeeded(String)})
 * @param recovery the recovery decision this run started with, if it took over an unfinished run
 * @param stages the stages entered, with times, in order
 * @param origin the program and sync server that ran it; empty for runs recorded before this was kept
 *     (client schema V8) or by a store that does not record it
 */
public record RunRecord(
        String runId,
        TaskKey key,
        long epoch,
        String owner,
        TaskSource firstSource,
        List<TaskSource> mergedSources,
        Instant startedAt,
        Optional<Instant> endedAt,
        Optional<Stage> stage,
        String stageText,
        Optional<RunStatus> status,
        String statusText,
        Optional<String> error,
        Optional<String> recovery,
        List<StageEntry> stages,
        Optional<RunOrigin> origin) {

    public RunRecord {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(key, "key");
        mergedSources = List.copyOf(mergedSources);
        stages = List.copyOf(stages);
        Objects.requireNonNull(origin, "origin");
    }

    /** Without a recorded origin. */
    public RunRecord(
            String runId,
            TaskKey key,
            long epoch,
            String owner,
            TaskSource firstSource,
            List<TaskSource> mergedSources,
            Instant startedAt,
            Optional<Instant> endedAt,
            Optional<Stage> stage,
            String stageText,
            Optional<RunStatus> status,
            String statusText,
            Optional<String> error,
            Optional<String> recovery,
            List<StageEntry> stages) {
        this(
                runId,
                key,
                epoch,
                owner,
                firstSource,
                mergedSources,
                startedAt,
                endedAt,
                stage,
                stageText,
                status,
                statusText,
                error,
                recovery,
                stages,
                Optional.empty());
    }

    /** A stage with the wall-clock time it was entered. */
    public record StageEntry(String stage, Instant at) {}

    /** True if the stored status is {@code running} (not finished). */
    public boolean isRunning() {
        return status.map(s -> s == RunStatus.RUNNING).orElse(false);
    }
}
