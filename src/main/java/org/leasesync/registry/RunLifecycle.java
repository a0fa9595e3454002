package org.leasesync.registry;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * A local run from the moment it is handed to a worker thread until its key is free again:
 * <ol>
 *   <li>{@link #launch}: the run goes to the worker executor.</li>
 *   <li>execute: the {@link TaskRunner} runs; whatever it returns or throws becomes a
 *       {@link RunOutcome} (a lost lease is reported as such, a cancel as cancelled).</li>
 *   <li>finish, under the key's monitor: the heartbeat stops, the end is recorded under the run's
 *       fence (refused if the key was taken over: the record is then left for the new holder's
 *       recovery), the lease is released and the key forgotten. Then the retry scheduler hears of
 *       the outcome, listeners get {@code FINISHED}, the completion future completes, and a queued
 *       follow-up is submitted.</li>
 * </ol>
 *
 * <p>Thread-safe.
 */
final class RunLifecycle {

    private static final System.Logger log = System.getLogger(RunLifecycle.class.getName());

    private final TaskRegistry registry;
    private final RunStore runs;
    private final TaskRunner runner;
    private final Executor workers;
    private final LeaseKeeper keeper;
    private final ActiveRuns active;
    private final RunEvents events;
    private final RetryScheduler retries;
    private final BooleanSupplier closed;
    private final BiConsumer<TaskKey, List<TaskSource>> followUp;

    /**
     * @param followUp submits the follow-up run queued behind an ended run: its first source and the
     *     ones merged into it
     */
    RunLifecycle(TaskRegistry registry, RunStore runs, TaskRunner runner, Executor workers, LeaseKeeper keeper,
                 ActiveRuns active, RunEvents events, RetryScheduler retries, BooleanSupplier closed,
                 BiConsumer<TaskKey, List<TaskSource>> followUp) {
        this.registry = registry;
        this.runs = runs;
        this.runner = runner;
        this.workers = workers;
        this.keeper = keeper;
        this.active = active;
        this.events = events;
        this.retries = retries;
        this.closed = closed;
        this.followUp = followUp;
    }

    /**
     * Hands the run to a worker thread. If the executor refuses it, the run is recorded as failed and
     * forgotten, and the exception is rethrown (the caller still holds and must release the lease).
     */
    void launch(LocalRun run) {
        try {
            workers.execute(() -> execute(run));
        } catch (RuntimeException e) {
            active.remove(run);
            keeper.untrack(run.lease);
            runs.finishRun(run.lease.fence(), run.runId, RunStatus.FAILED, Optional.of("could not start: " + e.getMessage()),
                    registry.time().now());
            throw e;
        }
    }

    private void execute(LocalRun run) {
        TaskKey key = run.key();
        RunOutcome outcome;
        try {
            outcome = runner.run(new LocalRunContext(run, runs, active, events, registry.time()));
            if (outcome == null) {
                outcome = RunOutcome.failed("the run returned no outcome");
            }
        } catch (LeaseLostException e) {
            outcome = e.reason() == LeaseLoss.CANCELLED
                    ? RunOutcome.cancelled(run.cancelReason == null ? "cancelled" : run.cancelReason)
                    : RunOutcome.failed("stopped: " + e.reason().describe());
        } catch (Exception | LinkageError e) {
            log.log(System.Logger.Level.ERROR, "run " + run.runId + " for " + key + " failed", e);
            outcome = RunOutcome.failed(plain(e));
        }
        if (run.lease.isCancelRequested()
                && (outcome.status() == RunStatus.SUCCEEDED || outcome.status() == RunStatus.FAILED)) {
            outcome = RunOutcome.cancelled(run.cancelReason == null ? "cancelled" : run.cancelReason);
        } else if (outcome.status() == RunStatus.FAILED && !run.lease.isValid()) {
            // The failure the run saw (typically a call that "timed out" while the process was
            // paused) is a symptom: the lease ran out or was taken over, and that is what to report.
            outcome = RunOutcome.failed("stopped: " + run.lease.lossReason().describe());
        }
        finish(run, outcome);
    }

    private void finish(LocalRun run, RunOutcome outcome) {
        TaskKey key = run.key();
        boolean recorded = false;
        List<TaskSource> queued;
        synchronized (active.lockFor(key)) {
            keeper.untrack(run.lease);
            // The run has returned: record its end under its fence (the database decides whether the
            // fence is still current) and free the key. If the key was taken over, both are refused
            // and the record is left for the new holder's recovery.
            try {
                runs.finishRun(run.lease.fence(), run.runId, outcome.status(), outcome.message(), registry.time().now());
                recorded = true;
            } catch (LeaseLostException e) {
                log.log(System.Logger.Level.WARNING, "run {0} could not record its end: {1}; "
                        + "left for the next holder''s recovery", run.runId, e.getMessage());
            } catch (RuntimeException e) {
                log.log(System.Logger.Level.ERROR, "run " + run.runId + " could not record its end", e);
            }
            releaseQuietly(registry, run.lease);
            active.remove(run);
            queued = run.followUpSources;
        }
        RunResult result = new RunResult(run.runId, key, outcome.status(), outcome.message(), registry.time().now(),
                recorded);
        log.log(System.Logger.Level.INFO, "run {0} for {1} ended: {2}{3}", run.runId, key, outcome.status().wireName(),
                outcome.message().map(m -> " — " + m).orElse(""));
        if (!closed.getAsBoolean() && (queued == null || queued.isEmpty())) {
            retries.onRunEnded(key, outcome);
        }
        events.publish(new RunEvent(RunEvent.Kind.FINISHED, key, Optional.of(run.view), Optional.empty(),
                Optional.of(result), outcome.message()));
        run.completion.complete(result);
        if (closed.getAsBoolean()) {
            return;
        }
        if (queued != null && !queued.isEmpty()) {
            try {
                followUp.accept(key, queued);
            } catch (RuntimeException e) {
                log.log(System.Logger.Level.WARNING, "follow-up run for {0} could not start: {1}", key, e.getMessage());
            }
        }
    }

    /** Releases a lease; a database failure is logged and the lease left to expire. */
    static void releaseQuietly(TaskRegistry registry, HeldLease lease) {
        try {
            registry.release(lease);
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.WARNING, "could not release {0}: {1}; it will expire", lease, e.getMessage());
        }
    }

    static String plain(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
