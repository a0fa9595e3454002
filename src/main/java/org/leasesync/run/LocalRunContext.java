package org.leasesync.run;

import java.util.Optional;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;

/**
 * What a {@link TaskRunner} gets for one local run: the run's identity and lease, and the only ways
 * to record its stages (a guarded write, then a {@code STAGE} event) and progress (in memory, then a
 * {@code PROGRESS} event).
 */
final class LocalRunContext implements RunContext {

    private final LocalRun run;
    private final RunStore runs;
    private final ActiveRuns active;
    private final RunEvents events;
    private final TimeSource time;

    LocalRunContext(LocalRun run, RunStore runs, ActiveRuns active, RunEvents events, TimeSource time) {
        this.run = run;
        this.runs = runs;
        this.active = active;
        this.events = events;
        this.time = time;
    }

    @Override
    public String runId() {
        return run.runId;
    }

    @Override
    public TaskKey key() {
        return run.key();
    }

    @Override
    public TaskSource source() {
        return run.request.source();
    }

    @Override
    public HeldLease lease() {
        return run.lease;
    }

    @Override
    public Optional<RecoveryDecision> recovery() {
        return run.recovery;
    }

    @Override
    public Optional<Checkpoint> checkpointAtStart() {
        return run.checkpoint;
    }

    @Override
    public boolean checkAgain() {
        return run.request.checkAgain();
    }

    @Override
    public boolean discardUnconfirmed() {
        return run.request.discardUnconfirmed();
    }

    @Override
    public void enterStage(Stage stage) {
        runs.enterStage(fence(), run.runId, stage, time.now());
        synchronized (active.lockFor(key())) {
            run.view = run.view.withStage(stage);
        }
        events.publish(new RunEvent(
                RunEvent.Kind.STAGE,
                key(),
                Optional.of(run.view),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    }

    @Override
    public void progress(String text) {
        synchronized (active.lockFor(key())) {
            run.view = run.view.withProgress(text);
        }
        events.publish(new RunEvent(
                RunEvent.Kind.PROGRESS,
                key(),
                Optional.of(run.view),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    }

    @Override
    public void progress(String text, RunProgress counts) {
        java.util.Objects.requireNonNull(counts, "counts");
        synchronized (active.lockFor(key())) {
            run.view = run.view.withProgress(text, counts);
        }
        events.publish(new RunEvent(
                RunEvent.Kind.PROGRESS,
                key(),
                Optional.of(run.view),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    }

    @Override
    public RunProgress counts() {
        synchronized (active.lockFor(key())) {
            return run.view.counts();
        }
    }

    @Override
    public TimeSource time() {
        return time;
    }
}
