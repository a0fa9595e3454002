package org.leasesync.server.jobs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.JdbcLeaseStore;
import org.leasesync.store.SqlDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the server's jobs through the task registry, one scheduler per server instance, any number
 * of instances on one database:
 * <ol>
 *   <li>A tick (every {@link #tickPeriod()}, on the thread {@code sync-server-jobs}) reads each
 *       job's last completed occurrence and whether it has an unfinished run. An occurrence is a
 *       <em>slot</em>: the server clock's epoch milliseconds divided by the job's interval. A job is
 *       due when its current slot is later than its last completed one (missed slots coalesce into
 *       the current one), or when an unfinished run waits to be resumed. A last completed slot
 *       <em>later</em> than this clock's current one — written by an instance whose clock runs
 *       ahead, or this clock was stepped back — does not stop the job until this clock catches up
 *       (hours): once that record has stayed unchanged for a whole interval on this instance's
 *       monotonic clock, the next slot after it is due here, whatever the clocks say. Slots only go up.</li>
 *   <li>For a due job it asks {@code TaskRegistry.tryAcquire(job:NAME)} with this instance's
 *       {@link OwnerId}; a held key is left to its holder (it is taken over by the registry's rule
 *       only once the holder is provably dead, or unchanged for a whole TTL). A granted lease is
 *       renewed by a {@link LeaseKeeper} on the thread {@code sync-server-jobs-heartbeat}.</li>
 *   <li>The {@link JobRunner} then checks the job's state under that lease — skipping an occurrence
 *       another instance completed meanwhile, resuming an unfinished run from its checkpoint — and
 *       runs it, every write fenced by the lease's epoch. The lease is released after the run.</li>
 * </ol>
 * A failure (the database unreachable) is logged — once when it starts, once when it ends — and the
 * next tick tries again; a job whose run failed waits up to 10 s (at most its interval) before this
 * instance retries it. One line is logged per run.
 *
 * <p>Thread-safe. {@link #requestRun} and {@link #status} block on the database; {@link #close}
 * blocks until the running batch (if any) ends, at most about 10 s.
 */
public final class JobScheduler implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobScheduler.class);
    private static final long MIN_TICK_MS = 50;
    private static final long MAX_TICK_MS = 1_000;
    private static final long MAX_RETRY_DELAY_MS = 10_000;
    /**
     * The longest a sole instance's quiet tick waits: a wall clock stepped forward makes an occurrence
     * due sooner than the monotonic wait foresaw, and runs it at most this late.
     */
    static final long MAX_QUIET_MS = 60_000;

    private final SqlDatabase db;
    private final Map<String, Job<?>> jobs = new LinkedHashMap<>();
    private final JobSettings settings;
    private final String instanceId;
    private final TimeSource time;
    private final TaskRegistry registry;
    private final LeaseKeeper keeper;
    private final JobRunner runner;
    private final ScheduledExecutorService executor;
    private final ScheduledExecutorService heartbeat;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Map<String, Long> retryNotBeforeNanos = new ConcurrentHashMap<>();
    private final AheadSlots ahead;

    private volatile boolean databaseFailing;
    private volatile boolean sole;
    private volatile java.util.concurrent.@org.jspecify.annotations.Nullable Future<?> nextTick;
    private volatile java.util.function.Consumer<JobRunReport> finishedRuns = report -> {};

    /**
     * Creates the scheduler and its two threads; nothing runs before {@link #start()}.
     *
     * @param db the server database over the server's pool (holding the lease and job tables)
     * @param jobs the jobs, in the order they are ticked and shown
     * @param settings intervals, lease TTL, batch size, test pauses
     * @param instanceId this server instance's id, recorded with each run
     * @param owner this instance's lease owner id ({@link OwnerId#forCurrentProcess()})
     * @param time the server's time (wall clock for slots and stored times; monotonic for leases)
     * @param liveness proves other owners dead ({@link OwnerLiveness#processTable(String)})
     * @param hooks test hooks ({@link JobHooks#NONE})
     */
    public JobScheduler(
            SqlDatabase db,
            List<Job<?>> jobs,
            JobSettings settings,
            String instanceId,
            OwnerId owner,
            TimeSource time,
            OwnerLiveness liveness,
            JobHooks hooks) {
        this.db = Objects.requireNonNull(db, "db");
        jobs.forEach(j -> this.jobs.put(j.name(), j));
        this.settings = Objects.requireNonNull(settings, "settings");
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
        this.time = Objects.requireNonNull(time, "time");
        this.ahead = new AheadSlots(time);
        this.registry = new TaskRegistry(new JdbcLeaseStore(db), owner, settings.leaseTtl(), time, liveness);
        this.keeper = new LeaseKeeper(registry);
        this.runner = new JobRunner(
                db,
                instanceId,
                time,
                settings.batchSize(),
                JobHooks.pausing(Objects.requireNonNull(hooks, "hooks"), settings.pauseAfterFirstBatch(), stopping));
        java.util.concurrent.ScheduledThreadPoolExecutor jobThread =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1, named("sync-server-jobs"));
        // close() cancels the next tick, up to a minute away: out of the queue, it does not hold the thread up
        jobThread.setRemoveOnCancelPolicy(true);
        this.executor = jobThread;
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(named("sync-server-jobs-heartbeat"));
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Sets who hears of every finished run of this instance (e.g. the server's metrics); call before
     * {@link #start()}. The listener runs on the job thread and must not block; what it throws is
     * logged and ignored.
     *
     * @return this scheduler
     */
    public JobScheduler onFinishedRuns(java.util.function.Consumer<JobRunReport> listener) {
        this.finishedRuns = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Tells the scheduler that no other instance shares its database (H2, whose files one server
     * process holds): when a tick finds nothing due, nothing unfinished and nothing to retry, the next
     * tick waits for the next occurrence (at most {@link #MAX_QUIET_MS}) instead of
     * {@link #tickPeriod()}, so an idle server does not wake once a second to read the jobs' state.
     * Another instance's unfinished run, which only a shared database can hold, is why the others keep
     * ticking. Call before {@link #start()}.
     *
     * @return this scheduler
     */
    public JobScheduler soleInstance() {
        this.sole = true;
        return this;
    }

    /** Starts the heartbeat and, unless jobs are off ({@code --jobs off}), the ticks. */
    public void start() {
        keeper.start(heartbeat);
        if (settings.scheduled()) {
            tickAfter(tickPeriod().toMillis());
        }
    }

    private void tickAfter(long delayMs) {
        try {
            nextTick = executor.schedule(
                    () -> tickAfter(tickQuietly()), Math.max(MIN_TICK_MS, delayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("job scheduler closing; no further tick");
        }
    }

    /**
     * How often the scheduler looks for due jobs: a quarter of the shortest scheduled interval,
     * between 50 ms and 1 s.
     */
    public Duration tickPeriod() {
        long shortest = MAX_TICK_MS * 4;
        for (String name : jobs.keySet()) {
            shortest = Math.min(
                    shortest, settings.interval(name).map(Duration::toMillis).orElse(shortest));
        }
        return Duration.ofMillis(Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, shortest / 4)));
    }

    private long tickQuietly() {
        try {
            return tick();
        } catch (Throwable e) {
            // Whatever it was: a tick that throws must not end the ticks, or no job would run on this
            // instance for the rest of its life.
            log.error("job scheduler tick failed unexpectedly; it goes on at the next tick", e);
            return tickPeriod().toMillis();
        }
    }

    /**
     * One pass over the jobs: runs each that is due, one after the other, on the calling thread.
     *
     * @return milliseconds until the next pass: {@link #tickPeriod()}, or on a {@linkplain #soleInstance()
     *     sole instance} that found nothing to do, until the next occurrence (at most {@link #MAX_QUIET_MS})
     */
    long tick() {
        long tick = tickPeriod().toMillis();
        if (stopping.getCount() == 0) {
            return tick;
        }
        JobStore.Overview overview;
        try {
            overview = runner.db()
                    .query("read the jobs' state", c -> runner.store().overview(c));
        } catch (RuntimeException e) {
            failing("read the jobs' state", e);
            return tick;
        }
        long nowMs = time.now().toEpochMilli();
        long quietMs = sole && retryNotBeforeNanos.isEmpty() ? MAX_QUIET_MS : tick;
        for (Job<?> job : jobs.values()) {
            if (stopping.getCount() == 0) {
                return tick;
            }
            Long slot = settings.interval(job.name())
                    .map(d -> Math.floorDiv(nowMs, d.toMillis()))
                    .orElse(null);
            Long last = overview.lastCompletedSlots().get(job.name());
            boolean unfinished = overview.checkpointed().contains(job.name());
            slot = ahead.catchUp(
                    job.name(),
                    slot,
                    last,
                    settings.interval(job.name()).map(Duration::toNanos).orElse(0L));
            boolean due = unfinished || slot != null && (last == null || last < slot);
            if (due || ahead.waiting(job.name())) {
                quietMs = tick;
            } else if (slot != null) {
                long intervalMs = settings.interval(job.name()).orElseThrow().toMillis();
                quietMs = Math.min(quietMs, (slot + 1) * intervalMs - nowMs);
            }
            Long notBefore = retryNotBeforeNanos.get(job.name());
            if (!due || notBefore != null && time.monotonicNanos() - notBefore < 0) {
                continue;
            }
            try {
                runScheduled(job, slot);
            } catch (RuntimeException e) {
                failing("run job " + job.name(), e);
                retryLater(job);
                return tick;
            }
        }
        if (databaseFailing) {
            databaseFailing = false;
            log.info("jobs: the scheduler works again");
        }
        return Math.max(tick, quietMs);
    }

    private <P> void runScheduled(Job<P> job, Long slot) {
        Optional<HeldLease> lease = registry.tryAcquire(job.key());
        if (lease.isEmpty()) {
            log.debug("job {} is held by another owner; not run here", job.name());
            return;
        }
        keeper.track(lease.get());
        try {
            Optional<JobRunner.Started<P>> run = runner.begin(job, lease.get(), JobTrigger.SCHEDULE, slot);
            if (run.isEmpty()) {
                log.debug("job {}: slot {} was already completed; skipped", job.name(), slot);
                return;
            }
            complete(run.get(), lease.get(), false);
        } catch (LeaseLostException e) {
            log.info(
                    "job {}: the lease was lost before the run began; nothing was written ({})",
                    job.name(),
                    e.getMessage());
        } finally {
            releaseQuietly(lease.get());
        }
    }

    /** Runs the batches of a started run and reports it. */
    private void complete(JobRunner.Started<?> run, HeldLease lease, boolean release) {
        try {
            JobRunReport report = runner.finish(run, lease, () -> stopping.getCount() == 0);
            if (report.result() == JobResult.FAILED) {
                retryLater(jobs.get(report.job()));
            } else {
                retryNotBeforeNanos.remove(report.job());
            }
            onJobRunFinished(report);
        } finally {
            if (release) {
                releaseQuietly(lease);
            }
        }
    }

    /**
     * The one place every finished run of this instance passes through: logs its line (INFO when
     * it ended ok or was interrupted, WARN when it failed or lost its lease). Metrics of job runs
     * belong here.
     */
    private void onJobRunFinished(JobRunReport report) {
        try {
            finishedRuns.accept(report);
        } catch (RuntimeException e) {
            log.warn("the listener of finished job runs failed: {}", e.toString());
        }
        if (report.result() == JobResult.OK || report.result() == JobResult.INTERRUPTED) {
            log.info(report.describe(instanceId));
        } else {
            log.warn(report.describe(instanceId));
        }
    }

    private void retryLater(Job<?> job) {
        long delayMs = Math.min(
                MAX_RETRY_DELAY_MS,
                settings.interval(job.name()).map(Duration::toMillis).orElse(MAX_RETRY_DELAY_MS));
        retryNotBeforeNanos.put(job.name(), time.monotonicNanos() + delayMs * 1_000_000);
    }

    private void failing(String what, RuntimeException e) {
        if (!databaseFailing) {
            databaseFailing = true;
            log.warn("jobs: could not {} ({}); trying again at the next tick", what, e.getMessage());
        } else {
            log.debug("jobs: still failing to {}: {}", what, e.getMessage());
        }
    }

    private void releaseQuietly(HeldLease lease) {
        keeper.untrack(lease);
        try {
            registry.release(lease);
        } catch (RuntimeException e) {
            // The database is unreachable: the lease expires by itself, and this registry takes its own back.
            log.debug("could not release {}: {}", lease, e.getMessage());
        }
    }

    /**
     * Asks for a run of the job now ({@code POST /v1/admin/jobs/{name}/run}): takes its lease and
     * begins a run here (trigger {@code manual}, or {@code takeover}/{@code recovery} if an unfinished
     * run waits to be resumed), whose batches then go on on the job thread; or, if the lease is held,
     * joins the holder. Blocks on the database while it decides.
     *
     * @throws IllegalArgumentException naming the job if there is no such job
     * @throws RejectedExecutionException if the scheduler is closing (nothing was started)
     * @throws IllegalStateException if the job's unfinished run has an unreadable checkpoint (fail
     *     closed: nothing is started until it is looked at)
     * @throws org.leasesync.lease.LeasesyncException if the database fails
     */
    public RunRequest requestRun(String name) {
        Job<?> job = jobs.get(name);
        if (job == null) {
            throw new IllegalArgumentException(
                    "unknown job '" + name + "'; known jobs: " + String.join(", ", jobs.keySet()));
        }
        if (stopping.getCount() == 0) {
            throw new RejectedExecutionException("the server is stopping; no job is started");
        }
        return startManual(job);
    }

    private <P> RunRequest startManual(Job<P> job) {
        Optional<HeldLease> granted = registry.tryAcquire(job.key());
        if (granted.isEmpty() && registry.lease(job.key()).map(r -> !r.isHeld()).orElse(false)) {
            granted = registry.tryAcquire(job.key()); // the holder released it just now: ask once more
        }
        if (granted.isEmpty()) {
            return JobViews.joined(runner.db(), runner.store(), registry, job);
        }
        HeldLease lease = granted.get();
        keeper.track(lease);
        try {
            JobRunner.Started<P> run =
                    runner.begin(job, lease, JobTrigger.MANUAL, null).orElseThrow();
            executor.execute(() -> complete(run, lease, true));
            return new RunRequest.Started(
                    job.name(), run.runId(), run.trigger(), run.epoch(), instanceId, run.resumedFrom());
        } catch (RejectedExecutionException e) {
            releaseQuietly(lease);
            throw new RejectedExecutionException("the server is stopping; no job is started", e);
        } catch (RuntimeException e) {
            releaseQuietly(lease);
            throw e;
        }
    }

    /**
     * Every job's schedule, lease holder, unfinished run and last {@code runsPerJob} runs
     * ({@code GET /v1/admin/jobs}). Blocks on the database.
     *
     * @throws org.leasesync.lease.LeasesyncException if the database fails
     */
    public ObjectNode status(int runsPerJob) {
        return JobViews.status(
                runner.db(),
                runner.store(),
                registry,
                List.copyOf(jobs.values()),
                settings,
                instanceId,
                time.now(),
                runsPerJob);
    }

    /** This instance's lease owner id. */
    public OwnerId owner() {
        return registry.owner();
    }

    /**
     * Stops: no new run starts, a paused test run is let go, the running batch finishes and its run
     * is marked interrupted (checkpoint kept), its lease released; then both threads end. Idempotent.
     */
    @Override
    public void close() {
        stopping.countDown();
        executor.shutdown();
        java.util.concurrent.Future<?> next = nextTick;
        if (next != null) {
            next.cancel(false); // a running tick ends by itself, its successor is refused
        }
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("the job thread did not stop within 10 s; interrupting it");
                executor.shutdownNow();
                executor.awaitTermination(2, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        keeper.close();
        heartbeat.shutdownNow();
    }
}
