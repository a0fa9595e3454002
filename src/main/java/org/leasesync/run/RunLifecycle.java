package org.leasesync.run;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.leasesync.lease.FatalErrorHandler;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;

/**
 * A local run from the moment it is handed to a worker thread until its key is free again:
 * <ol>
 *   <li>{@link #launch}: the run becomes this process's run of the key (tracked by the heartbeat,
 *       {@code STARTED} published) and goes to the worker executor.</li>
 *   <li>execute: the {@link TaskRunner} runs; whatever it returns or throws becomes a
 *       {@link RunOutcome} (a lost lease is reported as such, a cancel as cancelled, and anything
 *       else — an exception or an {@link Error} such as {@link StackOverflowError},
 *       {@link AssertionError} or {@link OutOfMemoryError} — as failed with what it was).</li>
 *   <li>finish, under the key's monitor: the heartbeat stops, the end is recorded under the run's
 *       fence (refused if the key was taken over: the record is then left for the new holder's
 *       recovery), the lease is released and the key forgotten — each step on its own, so one that
 *       fails cannot keep the others from happening. Then the retry scheduler hears of the outcome,
 *       listeners get {@code FINISHED}, the completion future completes, a queued follow-up is
 *       submitted, and a fatal error ({@link FatalErrorHandler#isFatal}) is handed to the process's
 *       {@link FatalErrorHandler} — after the lease is released, so other processes can take the
 *       key at once.</li>
 * </ol>
 * A run the executor refuses (shut down, or no thread can be created) is finished the same way, as
 * failed with "could not start: …".
 *
 * <p>Thread-safe.
 */
final class RunLifecycle {

    private static final System.Logger log = System.getLogger(RunLifecycle.class.getName());

    private final ServerWaitGate waits;
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
    private final FatalErrorHandler fatal;

    /**
     * @param followUp submits the follow-up run queued behind an ended run: its first source and the
     *     ones merged into it
     * @param fatal told of a fatal error once the run that met it has ended and released its lease
     */
    RunLifecycle(
            TaskRegistry registry,
            RunStore runs,
            TaskRunner runner,
            Executor workers,
            LeaseKeeper keeper,
            ActiveRuns active,
            RunEvents events,
            RetryScheduler retries,
            BooleanSupplier closed,
            BiConsumer<TaskKey, List<TaskSource>> followUp,
            FatalErrorHandler fatal,
            ServerWaitGate waits) {
        this.waits = waits;
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
        this.fatal = fatal;
    }

    /**
     * Makes the recorded run this process's run of its key and hands it to a worker thread. Never
     * throws: if anything fails on the way (the executor refuses the run, or no thread can be
     * created), the run is finished as failed — recorded, lease released, key forgotten — and its
     * completion future completes. Called under the key's monitor.
     */
    void launch(LocalRun run, TaskSource source) {
        try {
            active.add(run);
            keeper.track(run.lease);
            events.publish(new RunEvent(
                    RunEvent.Kind.STARTED,
                    run.key(),
                    Optional.of(run.view),
                    Optional.of(source),
                    Optional.empty(),
                    Optional.empty()));
            log.log(
                    System.Logger.Level.INFO,
                    "run {0} started for {1} by {2} (epoch {3}{4})",
                    run.runId,
                    run.key(),
                    source.wireName(),
                    run.lease.fence().epoch(),
                    run.recovery.map(r -> ", " + r.action().wireName()).orElse(""));
            workers.execute(() -> execute(run));
        } catch (Throwable e) {
            log.log(System.Logger.Level.ERROR, "run " + run.runId + " for " + run.key() + " could not start", e);
            finish(run, RunOutcome.failed("could not start: " + FatalErrorHandler.describe(e)), e);
        }
    }

    private void execute(LocalRun run) {
        TaskKey key = run.key();
        RunOutcome outcome;
        Throwable error = null;
        try {
            outcome = runner.run(new LocalRunContext(run, runs, active, events, registry.time()));
            if (outcome == null) {
                outcome = RunOutcome.failed("the run returned no outcome");
            }
        } catch (LeaseLostException e) {
            outcome = e.reason() == LeaseLoss.CANCELLED
                    ? RunOutcome.cancelled(run.cancelReason == null ? "cancelled" : run.cancelReason)
                    : RunOutcome.failed("stopped: " + e.reason().describe());
        } catch (Throwable e) {
            // Exceptions and Errors alike: a run that is not ended here keeps its key forever (its
            // lease renewed, `active` holding it, every later trigger joining a dead run).
            error = e;
            logQuietly("run " + run.runId + " for " + key + " failed", e);
            outcome = RunOutcome.failed(FatalErrorHandler.describe(e));
        }
        if (run.lease.isCancelRequested()
                && (outcome.status() == RunStatus.SUCCEEDED || outcome.status() == RunStatus.FAILED)) {
            outcome = RunOutcome.cancelled(run.cancelReason == null ? "cancelled" : run.cancelReason);
        } else if (outcome.status() == RunStatus.FAILED && outcome.epochAtLeast() == 0 && !run.lease.isValid()) {
            // The failure the run saw (typically a call that "timed out" while the process was
            // paused) is a symptom: the lease ran out or was taken over, and that is what to report.
            outcome = RunOutcome.failed("stopped: " + run.lease.lossReason().describe());
        }
        finish(run, outcome, error);
    }

    /**
     * Ends the run. Each step is guarded on its own; nothing here throws.
     *
     * @param error what ended the run, if it threw; handed to the fatal-error handler at the end
     */
    private void finish(LocalRun run, RunOutcome outcome, @Nullable Throwable error) {
        TaskKey key = run.key();
        boolean recorded = false;
        List<TaskSource> queued = null;
        Throwable fatalSeen = FatalErrorHandler.isFatal(error) ? error : null;
        synchronized (active.lockFor(key)) {
            try {
                keeper.untrack(run.lease);
                // The run has returned: record its end under its fence (the database decides whether
                // the fence is still current) and free the key. If the key was taken over, both are
                // refused and the record is left for the new holder's recovery.
                try {
                    runs.finishRun(
                            run.lease.fence(),
                            run.runId,
                            outcome.status(),
                            outcome.message(),
                            registry.time().now());
                    recorded = true;
                } catch (LeaseLostException e) {
                    log.log(
                            System.Logger.Level.WARNING,
                            "run {0} could not record its end: {1}; " + "left for the next holder''s recovery",
                            run.runId,
                            e.getMessage());
                } catch (Throwable e) {
                    logQuietly("run " + run.runId + " could not record its end", e);
                    fatalSeen = fatalSeen != null ? fatalSeen : FatalErrorHandler.isFatal(e) ? e : null;
                }
                HeldLease toRelease = run.lease;
                if (outcome.epochAtLeast() > run.lease.fence().epoch()) {
                    RaisedEpoch raised = raiseEpoch(run, outcome.epochAtLeast());
                    outcome = raised.outcome();
                    toRelease = raised.lease();
                }
                waits.runEnded(key, outcome); // before the key is free: no trigger can slip in ahead of the wait
                Throwable releaseError = releaseQuietly(registry, toRelease);
                fatalSeen =
                        fatalSeen != null ? fatalSeen : FatalErrorHandler.isFatal(releaseError) ? releaseError : null;
            } finally {
                active.remove(run);
                queued = run.followUpSources;
            }
        }
        RunResult result = null;
        try {
            result = new RunResult(
                    run.runId,
                    key,
                    outcome.status(),
                    outcome.message(),
                    registry.time().now(),
                    recorded);
            log.log(
                    System.Logger.Level.INFO,
                    "run {0} for {1} ended: {2}{3}",
                    run.runId,
                    key,
                    outcome.status().wireName(),
                    outcome.message().map(m -> " — " + m).orElse(""));
            if (!closed.getAsBoolean() && (queued == null || queued.isEmpty())) {
                retries.onRunEnded(key, outcome);
            }
            events.publish(new RunEvent(
                    RunEvent.Kind.FINISHED,
                    key,
                    Optional.of(run.view),
                    Optional.empty(),
                    Optional.of(result),
                    outcome.message()));
        } catch (Throwable e) {
            // Out of memory (or worse) while telling others: the key is free already.
            fatalSeen = fatalSeen != null ? fatalSeen : e;
        }
        try {
            runs.pruneHistory(key, registry.time().now()); // bounded; the key is free, no trigger waits
        } catch (Throwable e) {
            logQuietly("the run history of " + key + " could not be pruned", e);
            fatalSeen = fatalSeen != null ? fatalSeen : FatalErrorHandler.isFatal(e) ? e : null;
        }
        // The process hears of a fatal error before anyone waiting for the run does.
        FatalErrorHandler.report(fatal, fatalSeen);
        run.completion.complete(
                result != null
                        ? result
                        : new RunResult(
                                run.runId,
                                key,
                                RunStatus.FAILED,
                                Optional.of(FatalErrorHandler.describe(
                                        java.util.Objects.requireNonNull(fatalSeen, "no result without an error"))),
                                registry.time().now(),
                                recorded));
        if (!closed.getAsBoolean() && queued != null && !queued.isEmpty()) {
            try {
                followUp.accept(key, queued);
            } catch (Throwable e) {
                logQuietly("follow-up run for " + key + " could not start", e);
                FatalErrorHandler.report(fatal, e);
            }
        }
    }

    private record RaisedEpoch(RunOutcome outcome, HeldLease lease) {}

    /**
     * The server has seen a fencing token from this device at or above the run's epoch. If the lease
     * row is still this run's (owner and epoch unchanged), no later run of this device exists: the
     * lease table went back in time (a restored copy of the local database), and the epoch is raised
     * so that the next run's fencing token is accepted. Otherwise another run took the key over.
     */
    private RaisedEpoch raiseEpoch(LocalRun run, long atLeast) {
        long epoch = run.lease.fence().epoch();
        try {
            Optional<HeldLease> raised = registry.raiseEpoch(run.lease, atLeast);
            if (raised.isPresent()) {
                String why = "this device's lease epoch " + epoch + " for " + run.key() + " was behind the fencing "
                        + "token the sync server has already seen from it (was the local database restored from an "
                        + "older copy?); the epoch was raised to " + atLeast + ", so the next sync goes through";
                log.log(System.Logger.Level.WARNING, "run {0}: {1}", run.runId, why);
                return new RaisedEpoch(RunOutcome.failed(why), raised.get());
            }
        } catch (RuntimeException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    "run {0}: could not raise the epoch of {1}: {2}",
                    run.runId,
                    run.key(),
                    e.getMessage());
            return new RaisedEpoch(
                    RunOutcome.failed("stopped: the sync server has seen a newer run of this key"), run.lease);
        }
        return new RaisedEpoch(RunOutcome.failed("stopped: " + LeaseLoss.TAKEN_OVER.describe()), run.lease);
    }

    /**
     * Releases a lease; a failure is logged and the lease left to expire.
     *
     * @return what the release threw, or null
     */
    static @Nullable Throwable releaseQuietly(TaskRegistry registry, HeldLease lease) {
        try {
            registry.release(lease);
            return null;
        } catch (Throwable e) {
            try {
                log.log(System.Logger.Level.WARNING, "could not release {0}: {1}; it will expire", lease, e.toString());
            } catch (Throwable ignored) {
                // logging failed too (out of memory); the lease expires by itself
            }
            return e;
        }
    }

    /** Logs an error with its stack trace; a logger that fails (out of memory) is ignored. */
    private static void logQuietly(String what, Throwable e) {
        try {
            log.log(System.Logger.Level.ERROR, what, e);
        } catch (Throwable ignored) {
            // nothing more can be done; the run still ends
        }
    }
}
