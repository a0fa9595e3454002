package org.leasesync.run;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.leasesync.lease.FatalErrorHandler;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;

/**
 * Trigger coordination: every trigger only asks; the coordinator decides, per task key, whether to
 * start a run, join the running one, queue one follow-up, skip, or report that the key needs
 * attention. At most one run per key runs at a time — within this process by a per-key monitor and
 * across processes by the lease (invariant 1, one run per task key at a time: docs/architecture.md).
 *
 * <p>The parts: this class decides what a trigger gets; {@link RunJoiner} joins a running run, here
 * or in another process; {@link RunStarter} recovers an unfinished run and records the new one; {@link RunLifecycle} executes a run and ends it (record, release,
 * follow-up); {@link RetryScheduler} schedules retries after failures; {@link ActiveRuns} holds the
 * local runs and the per-key monitors; {@link RunEvents} tells the listeners.
 *
 * <p>A started trigger is one commit when the lease and run stores share a database and the start
 * check does not ask about the trigger: the grant and the start of the run are one transaction
 * ({@link TaskRegistry#tryAcquireJointly}); otherwise the grant commits first (docs/architecture.md
 * "The grant in the start's transaction").
 *
 * <p>Thread-safe. {@link #submit} blocks only on the local database (a few statements); the run
 * itself executes on the injected worker executor. Listeners are called on the thread that caused
 * the event and must not block.
 */
public final class Coordinator implements AutoCloseable {

    private static final System.Logger log = System.getLogger(Coordinator.class.getName());

    private final TaskRegistry registry;
    private final RunStore runs;
    private final ActiveRuns active = new ActiveRuns();
    private final RunEvents events;
    private final RunStarter starter;
    private final RetryScheduler retries;
    private final RunLifecycle lifecycle;
    private final RunJoiner joiner;
    private final ServerWaitGate waits;
    private volatile StartCheck startCheck = StartCheck.NONE;
    /** Whether the grant can share the start's transaction (the lease and run stores are one database). */
    private final boolean jointStart;

    private volatile boolean closed;

    /**
     * A coordinator whose fatal errors are only logged ({@link FatalErrorHandler#LOG_ONLY}).
     *
     * @param workers runs the {@link TaskRunner}; one thread per concurrently running key is enough
     * @param retryScheduler schedules {@code retry} triggers after failures; null disables retries
     */
    public Coordinator(
            TaskRegistry registry,
            RunStore runs,
            TaskRunner runner,
            Executor workers,
            LeaseKeeper keeper,
            ScheduledExecutorService retryScheduler,
            RetryPolicy retryPolicy) {
        this(registry, runs, runner, workers, keeper, retryScheduler, retryPolicy, FatalErrorHandler.LOG_ONLY);
    }

    /**
     * @param workers runs the {@link TaskRunner}; one thread per concurrently running key is enough
     * @param retryScheduler schedules {@code retry} triggers after failures; null disables retries
     * @param fatal what the process does after a fatal error ({@link FatalErrorHandler#isFatal}) in a
     *     run, a listener or a follow-up — called once the run that met it has ended and released its
     *     lease
     */
    public Coordinator(
            TaskRegistry registry,
            RunStore runs,
            TaskRunner runner,
            Executor workers,
            LeaseKeeper keeper,
            ScheduledExecutorService retryScheduler,
            RetryPolicy retryPolicy,
            FatalErrorHandler fatal) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.runs = Objects.requireNonNull(runs, "runs");
        this.events = new RunEvents(Objects.requireNonNull(fatal, "fatal"));
        this.starter = new RunStarter(runs, registry.time());
        this.jointStart = registry.canGrantJointly(runs);
        this.joiner = new RunJoiner(registry, runs, events);
        this.waits = new ServerWaitGate(registry.time());
        this.retries = new RetryScheduler(
                retryScheduler,
                retryPolicy,
                registry.time(),
                key -> submit(TriggerRequest.of(key, TaskSource.RETRY)),
                () -> closed);
        this.lifecycle = new RunLifecycle(
                registry,
                runs,
                Objects.requireNonNull(runner, "runner"),
                Objects.requireNonNull(workers, "workers"),
                Objects.requireNonNull(keeper, "keeper"),
                active,
                events,
                retries,
                () -> closed,
                (key, sources) -> submit(TriggerRequest.of(key, sources.get(0)), sources.subList(1, sources.size())),
                fatal,
                waits);
    }

    /** Adds a listener for run events. */
    public void addListener(Consumer<RunEvent> listener) {
        events.add(listener);
    }

    /** Removes a listener. */
    public void removeListener(Consumer<RunEvent> listener) {
        events.remove(listener);
    }

    /**
     * Sets what is asked, with the lease granted and before a run is recorded, whether a trigger
     * still needs its run ({@link StartCheck#NONE} by default).
     */
    public void setStartCheck(StartCheck check) {
        this.startCheck = Objects.requireNonNull(check, "check");
    }

    /**
     * Sets where the sync server's waits ({@code Retry-After}) are kept; in memory by default. A
     * persistent store makes a restarted process honour a wait an earlier one was given.
     */
    public void setServerWaits(ServerWaits store) {
        waits.use(store);
    }

    /**
     * The time before which the sync server asked not to be contacted about {@code key}, while that
     * holds (wall clock); empty when no wait holds. Blocks briefly on the wait store.
     */
    public Optional<java.time.Instant> serverWaitUntil(TaskKey key) {
        return waits.holding(key).map(ServerWait::until);
    }

    /** The registry this coordinator uses. */
    public TaskRegistry registry() {
        return registry;
    }

    /** Shorthand for {@code submit(TriggerRequest.of(key, source))}. */
    public SubmitResult submit(TaskKey key, TaskSource source) {
        return submit(TriggerRequest.of(key, source));
    }

    /**
     * Asks for a run. Every trigger is recorded with its source: as the first source of a new run,
     * or as merged into the running one.
     *
     * @return started / joined / follow-up queued / skipped / waiting (the server's {@code Retry-After}
     *     has not passed: {@link SubmitResult.Waiting}) / needs attention; never null
     * @throws StoreException if the local database fails
     * @throws IllegalStateException after {@link #close()}
     */
    public SubmitResult submit(TriggerRequest request) {
        return submit(request, List.of());
    }

    private SubmitResult submit(TriggerRequest request, List<TaskSource> alsoMerged) {
        Objects.requireNonNull(request, "request");
        if (closed) {
            throw new IllegalStateException("coordinator is closed");
        }
        TaskKey key = request.key();
        synchronized (active.lockFor(key)) {
            Optional<LocalRun> local = active.get(key);
            if (local.isPresent()) {
                return joiner.joinLocal(local.get(), request);
            }
            if (!request.checkAgain() && !request.discardUnconfirmed()) {
                Optional<RunRecord> last = runs.lastRun(key);
                if (last.isPresent() && last.get().status().orElse(null) == RunStatus.NEEDS_ATTENTION) {
                    String reason = last.get().error().orElse("the last run ended in an unknown state");
                    return events.publish(new SubmitResult.NeedsAttention(key, reason, last));
                }
            }
            // Whatever asked, the server is not contacted before the time it named. The automatic retry
            // is the one exception: its delay is at least the Retry-After by construction, measured
            // on the monotonic clock from the same run end (RetryScheduler), so a wall clock a little
            // behind must not hold it back.
            Optional<ServerWait> wait = request.source() == TaskSource.RETRY ? Optional.empty() : waits.holding(key);
            if (wait.isPresent()) {
                return events.publish(new SubmitResult.Waiting(
                        key, wait.get().until(), wait.get().reason()));
            }
            Optional<HeldLease> lease;
            if (jointStart && !startCheck.asks(request)) {
                Optional<SubmitResult> started = startJointly(request, alsoMerged);
                if (started.isPresent()) {
                    return started.get();
                }
                lease = Optional.empty(); // held by another owner: join it, as below
            } else {
                lease = registry.tryAcquire(key);
            }
            if (lease.isEmpty()) {
                RunJoiner.Acquired acquired = joiner.acquireOrJoinRemote(request);
                if (acquired.lease().isEmpty()) {
                    return Objects.requireNonNull(acquired.joined(), "no lease and no join");
                }
                lease = acquired.lease();
            }
            try {
                Optional<String> unnecessary = startCheck.skipReason(request);
                if (unnecessary.isPresent()) {
                    RunLifecycle.releaseQuietly(registry, lease.get());
                    return events.publish(new SubmitResult.Skipped(key, unnecessary.get()));
                }
                return start(request, lease.get(), alsoMerged);
            } catch (Throwable e) {
                // Nothing was launched (launch itself never throws): free the key, or this process
                // would keep a lease it no longer knows about until it expires.
                RunLifecycle.releaseQuietly(registry, lease.get());
                throw e;
            }
        }
    }

    /**
     * The grant and the start of the run in one transaction ({@link TaskRegistry#tryAcquireJointly}):
     * one commit for a started trigger. If the start throws, nothing was granted (rolled back), so
     * there is nothing to release.
     *
     * @return the answer; empty if another owner holds the key (nothing was written)
     */
    private Optional<SubmitResult> startJointly(TriggerRequest request, List<TaskSource> alsoMerged) {
        Optional<TaskRegistry.Joint<RunStarter.Outcome>> joint = registry.tryAcquireJointly(
                request.key(),
                runs,
                "grant the lease and record the start of a run of " + request.key(),
                (lease, tx) -> starter.startIn(tx, request, lease, alsoMerged));
        if (joint.isEmpty()) {
            return Optional.empty();
        }
        HeldLease lease = joint.get().lease();
        try {
            return Optional.of(started(request, lease, joint.get().result(), alsoMerged));
        } catch (Throwable e) {
            RunLifecycle.releaseQuietly(registry, lease); // committed: free the key, as submit does
            throw e;
        }
    }

    private SubmitResult start(TriggerRequest request, HeldLease granted, List<TaskSource> alsoMerged) {
        return started(request, granted, starter.start(request, granted, alsoMerged), alsoMerged); // one commit
    }

    /** Acts on what the start came to: raise the epoch and start again, answer, or launch the run. */
    private SubmitResult started(
            TriggerRequest request, HeldLease granted, RunStarter.Outcome first, List<TaskSource> alsoMerged) {
        HeldLease lease = granted;
        LocalRun run;
        try {
            RunStarter.Outcome outcome = first;
            if (outcome instanceof RunStarter.Outcome.EpochBehind behind) {
                lease = raisedAbove(request.key(), lease, behind.recorded());
                outcome = starter.start(request, lease, alsoMerged);
                if (outcome instanceof RunStarter.Outcome.EpochBehind again) {
                    throw new LeaseLostException(
                            lease.fence(),
                            LeaseLoss.TAKEN_OVER,
                            "runs of epoch " + again.recorded() + " were recorded while the epoch was being raised");
                }
            }
            if (outcome instanceof RunStarter.Outcome.Answer answer) {
                RunLifecycle.releaseQuietly(registry, lease);
                return events.publish(answer.result());
            }
            run = ((RunStarter.Outcome.Recorded) outcome).run();
        } catch (Throwable e) {
            if (lease != granted) {
                RunLifecycle.releaseQuietly(registry, lease); // the caller only knows the granted one
            }
            throw e;
        }
        retries.cancel(request.key()); // this run does what the scheduled retry would have done
        lifecycle.launch(run, request.source()); // never throws; a run that cannot start ends as failed
        return new SubmitResult.Started(run.handle());
    }

    /**
     * A grant whose epoch is not above every run already recorded for the key means the lease table
     * went back in time (its row was reset, or the database partly restored): the run records of
     * that higher epoch would otherwise stay "last" — a needs-attention among them blocking the key
     * for good — and stay "running", never recovered. The epoch is raised above them first.
     */
    private HeldLease raisedAbove(TaskKey key, HeldLease lease, long recorded) {
        log.log(
                System.Logger.Level.WARNING,
                "{0}: granted epoch {1}, but runs were recorded up to epoch {2} — the lease "
                        + "table went back in time; raising the epoch",
                key,
                lease.fence().epoch(),
                recorded);
        return registry.raiseEpoch(lease, recorded + 1)
                .orElseThrow(() -> new LeaseLostException(
                        lease.fence(), LeaseLoss.TAKEN_OVER, "the lease changed while its epoch was being raised"));
    }

    /**
     * Cancels the key's run in this process: its lease stops accepting the run's writes at once
     * (fenced), the run stops at its next check and is recorded as cancelled. Does not block.
     *
     * @return false if no run of this key executes in this process
     */
    public boolean cancel(TaskKey key, String reason) {
        return active.cancel(key, reason);
    }

    /** Cancels every run of this process (shutdown). @return how many were cancelled */
    public int cancelAll(String reason) {
        int n = 0;
        for (LocalRun run : active.all()) {
            if (cancel(run.key(), reason)) {
                n++;
            }
        }
        return n;
    }

    /** Cancels every local run of {@code userId} (account switch). @return how many were cancelled */
    public int cancelUser(String userId, String reason) {
        int n = 0;
        for (LocalRun run : active.all()) {
            if (run.key().userId().equals(userId) && cancel(run.key(), reason)) {
                n++;
            }
        }
        return n;
    }

    /** When the automatic retry of a failed key is due (wall clock), if one is scheduled. */
    public Optional<java.time.Instant> nextRetryAt(TaskKey key) {
        return retries.nextRetryAt(key);
    }

    /** Whether a run of this key executes in this process. */
    public boolean isRunningLocally(TaskKey key) {
        return active.contains(key);
    }

    /** The key's running run: the local one, or one recorded by another process. */
    public Optional<RunView> runningRun(TaskKey key) {
        Optional<LocalRun> local = active.get(key);
        if (local.isPresent()) {
            return Optional.of(local.get().view);
        }
        return runs.runningRun(key).map(RunView::of);
    }

    /** Views of the runs executing in this process. */
    public List<RunView> localRuns() {
        return active.all().stream().map(r -> r.view).toList();
    }

    /**
     * Stops accepting triggers, cancels local runs, and waits up to {@code timeout} for them to end
     * (each records "cancelled" and releases its lease; one that does not stop in time keeps its
     * lease until it expires). Blocks.
     */
    public void shutdown(Duration timeout) {
        closed = true;
        List<LocalRun> running = active.all();
        for (LocalRun r : running) {
            cancel(r.key(), "the app is shutting down");
        }
        CompletableFuture<?>[] all = running.stream().map(r -> r.completion).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(all).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.log(System.Logger.Level.WARNING, "{0} run(s) did not stop within {1}", running.size(), timeout);
        }
    }

    @Override
    public void close() {
        shutdown(Duration.ofSeconds(5));
    }
}
