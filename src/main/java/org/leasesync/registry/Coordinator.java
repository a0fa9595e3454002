package org.leasesync.registry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Trigger coordination: every trigger only asks; the coordinator decides, per task key, whether to
 * start a run, join the running one, queue one follow-up, skip, or report that the key needs
 * attention. At most one run per key runs at a time — within this process by a per-key monitor and
 * across processes by the lease (design.md invariant 1).
 *
 * <p>Thread-safe. {@link #submit} blocks only on the local database (a few statements); the run
 * itself executes on the injected worker executor. Listeners are called on the thread that caused
 * the event and must not block.
 */
public final class Coordinator implements AutoCloseable {

    private static final System.Logger log = System.getLogger(Coordinator.class.getName());
    /** Polls for the run record of a remote holder that has just been granted its lease (~2 s in all). */
    private static final int STARTING_POLLS = 100;
    private static final Duration STARTING_POLL_INTERVAL = Duration.ofMillis(20);

    private final TaskRegistry registry;
    private final RunStore runs;
    private final TaskRunner runner;
    private final Executor workers;
    private final LeaseKeeper keeper;
    private final ScheduledExecutorService retryScheduler;
    private final RetryPolicy retryPolicy;
    private final Map<TaskKey, Object> locks = new ConcurrentHashMap<>();
    private final Map<TaskKey, LocalRun> active = new ConcurrentHashMap<>();
    private final Map<TaskKey, Integer> failureStreak = new ConcurrentHashMap<>();
    private final Map<TaskKey, java.time.Instant> retryDue = new ConcurrentHashMap<>();
    private final Map<TaskKey, java.util.concurrent.ScheduledFuture<?>> retryTimers = new ConcurrentHashMap<>();
    private final List<Consumer<RunEvent>> listeners = new CopyOnWriteArrayList<>();
    private volatile StartCheck startCheck = StartCheck.NONE;
    private volatile boolean closed;

    /**
     * @param workers runs the {@link TaskRunner}; one thread per concurrently running key is enough
     * @param retryScheduler schedules {@code retry} triggers after failures; null disables retries
     */
    public Coordinator(TaskRegistry registry, RunStore runs, TaskRunner runner, Executor workers,
                       LeaseKeeper keeper, ScheduledExecutorService retryScheduler, RetryPolicy retryPolicy) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.runs = Objects.requireNonNull(runs, "runs");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.workers = Objects.requireNonNull(workers, "workers");
        this.keeper = Objects.requireNonNull(keeper, "keeper");
        this.retryScheduler = retryScheduler;
        this.retryPolicy = retryPolicy == null ? RetryPolicy.NONE : retryPolicy;
    }

    /** Adds a listener for run events. */
    public void addListener(Consumer<RunEvent> listener) {
        listeners.add(Objects.requireNonNull(listener));
    }

    /** Removes a listener. */
    public void removeListener(Consumer<RunEvent> listener) {
        listeners.remove(listener);
    }

    /**
     * Sets what is asked, with the lease granted and before a run is recorded, whether a trigger
     * still needs its run ({@link StartCheck#NONE} by default).
     */
    public void setStartCheck(StartCheck check) {
        this.startCheck = Objects.requireNonNull(check, "check");
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
     * @return started / joined / follow-up queued / skipped / needs attention; never null
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
        synchronized (lockFor(key)) {
            LocalRun local = active.get(key);
            if (local != null) {
                return joinLocal(local, request);
            }
            if (!request.checkAgain() && !request.discardUnconfirmed()) {
                Optional<RunRecord> last = runs.lastRun(key);
                if (last.isPresent() && last.get().status().orElse(null) == RunStatus.NEEDS_ATTENTION) {
                    String reason = last.get().error().orElse("the last run ended in an unknown state");
                    return publish(new SubmitResult.NeedsAttention(key, reason, last));
                }
            }
            Optional<HeldLease> lease = registry.tryAcquire(key);
            for (int poll = 0; lease.isEmpty(); poll++) {
                // Held by another process. Join its run once its run record exists; a holder between
                // its grant and that record (milliseconds) is waited for, a bounded number of polls,
                // so the join is recorded on the run; a holder that was finishing frees the key.
                if (poll >= STARTING_POLLS || Thread.currentThread().isInterrupted()
                        || runs.runningRun(key).isPresent()) {
                    return joinRemote(request);
                }
                pause(STARTING_POLL_INTERVAL);
                lease = registry.tryAcquire(key);
            }
            try {
                Optional<String> unnecessary = startCheck.skipReason(request);
                if (unnecessary.isPresent()) {
                    safeRelease(lease.get());
                    return publish(new SubmitResult.Skipped(key, unnecessary.get()));
                }
                return start(request, lease.get(), alsoMerged);
            } catch (RuntimeException e) {
                safeRelease(lease.get());
                throw e;
            }
        }
    }

    private SubmitResult start(TriggerRequest request, HeldLease lease, List<TaskSource> alsoMerged) {
        TaskKey key = request.key();
        Fence fence = lease.fence();
        Optional<Checkpoint> checkpoint = runs.checkpoint(key);
        Optional<RecoveryDecision> recovery = Optional.empty();
        Optional<RunRecord> unfinished = runs.runningRun(key).filter(r -> r.epoch() < fence.epoch());
        if (unfinished.isPresent()) {
            RecoveryDecision decision = RecoveryPolicy.decide(unfinished.get(), checkpoint);
            String old = unfinished.get().runId();
            log.log(System.Logger.Level.INFO, "recovering {0} (run {1}): {2} — {3}", key, old,
                    decision.action().wireName(), decision.reason());
            switch (decision.action()) {
                case ASK -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.NEEDS_ATTENTION, decision.reason(), now());
                    safeRelease(lease);
                    return publish(new SubmitResult.NeedsAttention(key, decision.reason(), runs.run(old)));
                }
                case SKIP -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.SUCCEEDED, "completed (found done by recovery)", now());
                    if (request.source() == TaskSource.RECOVERY) {
                        safeRelease(lease);
                        return publish(new SubmitResult.Skipped(key, decision.reason()));
                    }
                }
                default -> {
                    runs.closeAbandonedRun(fence, old, RunStatus.FAILED,
                            "interrupted: its owner lost the lease; next run will " + decision.action().wireName(), now());
                    recovery = Optional.of(decision);
                }
            }
        } else if (request.discardUnconfirmed()) {
            recovery = Optional.of(new RecoveryDecision(RecoveryDecision.Action.RESTART,
                    "the user discarded the unconfirmed push; its edits are sent again"));
        } else if (request.checkAgain()) {
            recovery = Optional.of(new RecoveryDecision(RecoveryDecision.Action.RESUME,
                    "checking again from the saved checkpoint"));
        }
        cancelPendingRetry(key);   // this run does what the scheduled retry would have done
        String runId = UUID.randomUUID().toString();
        runs.insertRun(fence, runId, request.source(), Stage.PULLING, now(),
                recovery.map(r -> r.action().wireName() + ": " + r.reason()));
        for (TaskSource merged : alsoMerged) {
            runs.recordMergedTrigger(runId, merged, now());
        }
        RunView view = new RunView(runId, key, fence.epoch(), fence.owner().asString(), request.source(),
                alsoMerged, now(), Optional.of(Stage.PULLING), "", true, false);
        LocalRun run = new LocalRun(runId, lease, request, recovery, checkpoint, view);
        active.put(key, run);
        keeper.track(lease);
        publish(new RunEvent(RunEvent.Kind.STARTED, key, Optional.of(view), Optional.of(request.source()),
                Optional.empty(), Optional.empty()));
        log.log(System.Logger.Level.INFO, "run {0} started for {1} by {2} (epoch {3}{4})", runId, key,
                request.source().wireName(), fence.epoch(), recovery.map(r -> ", " + r.action().wireName()).orElse(""));
        RunHandle handle = new RunHandle(runId, key, lease, run.completion);
        try {
            workers.execute(() -> execute(run));
        } catch (RuntimeException e) {
            active.remove(key);
            keeper.untrack(lease);
            runs.finishRun(fence, runId, RunStatus.FAILED, Optional.of("could not start: " + e.getMessage()), now());
            throw e;
        }
        return new SubmitResult.Started(handle);
    }

    private SubmitResult joinLocal(LocalRun run, TriggerRequest request) {
        runs.recordMergedTrigger(run.runId, request.source(), now());
        if (run.followUpSources != null) {
            run.followUpSources.add(request.source());
            SubmitResult r = request.followUp()
                    ? new SubmitResult.FollowUpQueued(run.view, request.source(), true)
                    : new SubmitResult.Joined(run.view, request.source());
            return publish(r);
        }
        if (request.followUp()) {
            run.followUpSources = new ArrayList<>(List.of(request.source()));
            run.view = run.view.withMerged(request.source()).withFollowUp(true);
            return publish(new SubmitResult.FollowUpQueued(run.view, request.source(), false));
        }
        run.view = run.view.withMerged(request.source());
        return publish(new SubmitResult.Joined(run.view, request.source()));
    }

    /** Sleeps between polls for a remote holder's run record; an interrupt ends the wait early. */
    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private SubmitResult joinRemote(TriggerRequest request) {
        TaskKey key = request.key();
        Optional<RunRecord> running = runs.runningRun(key);
        if (running.isPresent()) {
            runs.recordMergedTrigger(running.get().runId(), request.source(), now());
            RunView view = RunView.of(runs.run(running.get().runId()).orElse(running.get()));
            return publish(new SubmitResult.Joined(view, request.source()));
        }
        // Held, but no running record: the holder is between grant and insert, or finishing.
        LeaseRecord held = registry.lease(key).orElse(null);
        String owner = held == null ? "unknown" : held.owner().map(OwnerId::asString).orElse("unknown");
        RunView view = new RunView("(starting)", key, held == null ? 0 : held.epoch(), owner, request.source(),
                List.of(), held == null ? now() : held.renewedAt(), Optional.empty(), "", false, false);
        return publish(new SubmitResult.Joined(view, request.source()));
    }

    private void execute(LocalRun run) {
        TaskKey key = run.view.key();
        RunOutcome outcome;
        try {
            outcome = runner.run(new Context(run));
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
        TaskKey key = run.view.key();
        boolean recorded = false;
        List<TaskSource> followUp;
        synchronized (lockFor(key)) {
            keeper.untrack(run.lease);
            // The run has returned: record its end under its fence (the database decides whether the
            // fence is still current) and free the key. If the key was taken over, both are refused
            // and the record is left for the new holder's recovery.
            try {
                runs.finishRun(run.lease.fence(), run.runId, outcome.status(), outcome.message(), now());
                recorded = true;
            } catch (LeaseLostException e) {
                log.log(System.Logger.Level.WARNING, "run {0} could not record its end: {1}; "
                        + "left for the next holder''s recovery", run.runId, e.getMessage());
            } catch (RuntimeException e) {
                log.log(System.Logger.Level.ERROR, "run " + run.runId + " could not record its end", e);
            }
            safeRelease(run.lease);
            active.remove(key);
            followUp = run.followUpSources;
        }
        RunResult result = new RunResult(run.runId, key, outcome.status(), outcome.message(), now(), recorded);
        log.log(System.Logger.Level.INFO, "run {0} for {1} ended: {2}{3}", run.runId, key, outcome.status().wireName(),
                outcome.message().map(m -> " — " + m).orElse(""));
        if (!closed && (followUp == null || followUp.isEmpty())) {
            scheduleRetryIfNeeded(key, outcome);
        }
        publish(new RunEvent(RunEvent.Kind.FINISHED, key, Optional.of(run.view), Optional.empty(),
                Optional.of(result), outcome.message()));
        run.completion.complete(result);
        if (closed) {
            return;
        }
        if (followUp != null && !followUp.isEmpty()) {
            try {
                submit(TriggerRequest.of(key, followUp.get(0)), followUp.subList(1, followUp.size()));
            } catch (RuntimeException e) {
                log.log(System.Logger.Level.WARNING, "follow-up run for {0} could not start: {1}", key, e.getMessage());
            }
        }
    }

    private void scheduleRetryIfNeeded(TaskKey key, RunOutcome outcome) {
        if (outcome.status() != RunStatus.FAILED) {
            failureStreak.remove(key);
            retryDue.remove(key);
            return;
        }
        int attempt = failureStreak.merge(key, 1, Integer::sum);
        if (retryScheduler == null || attempt > retryPolicy.maxAttempts()) {
            return;
        }
        Duration delay = retryPolicy.delay(attempt, outcome.retryAfterMillis(), ThreadLocalRandom.current()::nextDouble);
        retryDue.put(key, now().plus(delay));
        log.log(System.Logger.Level.INFO, "{0} failed; retry {1} in {2} ms", key, attempt, delay.toMillis());
        try {
            retryTimers.put(key, retryScheduler.schedule(() -> {
                retryDue.remove(key);
                retryTimers.remove(key);
                if (!closed) {
                    try {
                        submit(TriggerRequest.of(key, TaskSource.RETRY));
                    } catch (RuntimeException e) {
                        log.log(System.Logger.Level.WARNING, "retry trigger for {0} failed: {1}", key, e.getMessage());
                    }
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS));
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.DEBUG, "retry not scheduled: {0}", e.toString());
        }
    }

    /**
     * Cancels the key's run in this process: its lease stops accepting the run's writes at once
     * (fenced), the run stops at its next check and is recorded as cancelled. Does not block.
     *
     * @return false if no run of this key executes in this process
     */
    public boolean cancel(TaskKey key, String reason) {
        LocalRun run = active.get(key);
        if (run == null) {
            return false;
        }
        run.cancelReason = reason == null || reason.isBlank() ? "cancelled" : reason;
        run.followUpSources = null;
        run.lease.requestCancel();
        return true;
    }

    /** Cancels every run of this process (shutdown). @return how many were cancelled */
    public int cancelAll(String reason) {
        int n = 0;
        for (TaskKey key : List.copyOf(active.keySet())) {
            if (cancel(key, reason)) {
                n++;
            }
        }
        return n;
    }

    /** Cancels every local run of {@code userId} (account switch). @return how many were cancelled */
    public int cancelUser(String userId, String reason) {
        int n = 0;
        for (TaskKey key : List.copyOf(active.keySet())) {
            if (key.userId().equals(userId) && cancel(key, reason)) {
                n++;
            }
        }
        return n;
    }

    private void cancelPendingRetry(TaskKey key) {
        java.util.concurrent.ScheduledFuture<?> timer = retryTimers.remove(key);
        if (timer != null) {
            timer.cancel(false);
        }
        retryDue.remove(key);
    }

    /** When the automatic retry of a failed key is due (wall clock), if one is scheduled. */
    public Optional<java.time.Instant> nextRetryAt(TaskKey key) {
        return Optional.ofNullable(retryDue.get(key));
    }

    /** Whether a run of this key executes in this process. */
    public boolean isRunningLocally(TaskKey key) {
        return active.containsKey(key);
    }

    /** The key's running run: the local one, or one recorded by another process. */
    public Optional<RunView> runningRun(TaskKey key) {
        LocalRun local = active.get(key);
        if (local != null) {
            return Optional.of(local.view);
        }
        return runs.runningRun(key).map(RunView::of);
    }

    /** Views of the runs executing in this process. */
    public List<RunView> localRuns() {
        return active.values().stream().map(r -> r.view).toList();
    }

    /**
     * Stops accepting triggers, cancels local runs, and waits up to {@code timeout} for them to end
     * (each records "cancelled" and releases its lease; one that does not stop in time keeps its
     * lease until it expires). Blocks.
     */
    public void shutdown(Duration timeout) {
        closed = true;
        List<LocalRun> running = List.copyOf(active.values());
        for (LocalRun r : running) {
            cancel(r.view.key(), "the app is shutting down");
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

    private Object lockFor(TaskKey key) {
        return locks.computeIfAbsent(key, k -> new Object());
    }

    private void safeRelease(HeldLease lease) {
        try {
            registry.release(lease);
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.WARNING, "could not release {0}: {1}; it will expire", lease, e.getMessage());
        }
    }

    private java.time.Instant now() {
        return registry.time().now();
    }

    private SubmitResult publish(SubmitResult r) {
        RunEvent.from(r).ifPresent(this::publish);
        return r;
    }

    private void publish(RunEvent e) {
        for (Consumer<RunEvent> l : listeners) {
            try {
                l.accept(e);
            } catch (RuntimeException ex) {
                log.log(System.Logger.Level.WARNING, "run listener failed", ex);
            }
        }
    }

    static String plain(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private final class LocalRun {
        final String runId;
        final HeldLease lease;
        final TriggerRequest request;
        final Optional<RecoveryDecision> recovery;
        final Optional<Checkpoint> checkpoint;
        final CompletableFuture<RunResult> completion = new CompletableFuture<>();
        volatile RunView view;
        volatile List<TaskSource> followUpSources;
        volatile String cancelReason;

        LocalRun(String runId, HeldLease lease, TriggerRequest request, Optional<RecoveryDecision> recovery,
                 Optional<Checkpoint> checkpoint, RunView view) {
            this.runId = runId;
            this.lease = lease;
            this.request = request;
            this.recovery = recovery;
            this.checkpoint = checkpoint;
            this.view = view;
        }
    }

    private final class Context implements RunContext {
        private final LocalRun run;

        Context(LocalRun run) {
            this.run = run;
        }

        @Override
        public String runId() {
            return run.runId;
        }

        @Override
        public TaskKey key() {
            return run.view.key();
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
            runs.enterStage(fence(), run.runId, stage, now());
            synchronized (lockFor(key())) {
                run.view = run.view.withStage(stage);
            }
            publish(new RunEvent(RunEvent.Kind.STAGE, key(), Optional.of(run.view), Optional.empty(),
                    Optional.empty(), Optional.empty()));
        }

        @Override
        public void progress(String text) {
            synchronized (lockFor(key())) {
                run.view = run.view.withProgress(text);
            }
            publish(new RunEvent(RunEvent.Kind.PROGRESS, key(), Optional.of(run.view), Optional.empty(),
                    Optional.empty(), Optional.empty()));
        }

        @Override
        public TimeSource time() {
            return registry.time();
        }
    }
}
