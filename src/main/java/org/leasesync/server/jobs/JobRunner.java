package org.leasesync.server.jobs;

import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.leasesync.lease.FatalErrorHandler;
import org.leasesync.lease.Fence;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.JdbcGuard;
import org.leasesync.store.SqlDatabase;

/**
 * Runs a job under a lease this instance holds, every write fenced by that lease's epoch
 * ({@link JdbcGuard#inTransaction}), so a run whose lease was lost — expired, taken over, or its
 * process frozen and woken — writes nothing more:
 * <ol>
 *   <li><b>Begin</b> (one fenced transaction): record this instance as the holder; if the job has a
 *       checkpoint, an earlier run did not finish: mark that run {@code interrupted} (if still
 *       {@code running}) and resume from the checkpoint, as a {@code takeover} (another owner's run)
 *       or a {@code recovery} (this instance's own); else, for a scheduled occurrence already
 *       completed, skip; else start at {@link Job#start}. Insert the run and its checkpoint.</li>
 *   <li><b>Batches</b> (one fenced transaction each): the job's work, the new checkpoint and the
 *       run's processed count commit together. After the last batch the run is marked {@code ok},
 *       the checkpoint deleted, the occurrence recorded as completed and the job's run history cut
 *       to its newest {@value #KEEP_RUNS} runs — in the same transaction.</li>
 *   <li>Between batches the lease is checked locally ({@link HeldLease#checkedFence()}) and the
 *       stop request honoured (the run is then marked {@code interrupted}, its checkpoint kept).</li>
 * </ol>
 * A batch that fails marks the run {@code failed} (best effort) and keeps the checkpoint, so the
 * next run recovers it.
 *
 * <p>Thread-safe; every method blocks on the database.
 */
public final class JobRunner {

    /** A run that began (its run row and checkpoint are committed) and has batches to do. */
    public static final class Started<P> {
        private final Job<P> job;
        private final long runId;
        private final JobTrigger trigger;
        private final Long slot;
        private final long epoch;
        private final Long resumedFrom;
        private P position;
        private long processed;

        Started(
                Job<P> job,
                long runId,
                JobTrigger trigger,
                Long slot,
                long epoch,
                Long resumedFrom,
                P position,
                long processed) {
            this.job = job;
            this.runId = runId;
            this.trigger = trigger;
            this.slot = slot;
            this.epoch = epoch;
            this.resumedFrom = resumedFrom;
            this.position = position;
            this.processed = processed;
        }

        public String job() {
            return job.name();
        }

        public long runId() {
            return runId;
        }

        public JobTrigger trigger() {
            return trigger;
        }

        public long epoch() {
            return epoch;
        }

        public Long resumedFrom() {
            return resumedFrom;
        }
    }

    /** Runs kept per job ({@code job_runs}): older ones are deleted when a run completes. */
    public static final int KEEP_RUNS = 100;

    private final SqlDatabase db;
    private final JdbcGuard guard;
    private final JobStore store;
    private final String instanceId;
    private final TimeSource time;
    private final int batchSize;
    private final JobHooks hooks;

    /**
     * @param db the server database (holding the lease and job tables)
     * @param instanceId this server instance's id, recorded with every run
     * @param time the server's time: wall clock for stored times and job cutoffs, monotonic for durations
     * @param batchSize rows per batch
     * @param hooks test hooks ({@link JobHooks#NONE} in production)
     */
    public JobRunner(SqlDatabase db, String instanceId, TimeSource time, int batchSize, JobHooks hooks) {
        this.db = Objects.requireNonNull(db, "db");
        this.guard = new JdbcGuard(db);
        this.store = new JobStore();
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
        this.time = Objects.requireNonNull(time, "time");
        this.batchSize = batchSize;
        this.hooks = Objects.requireNonNull(hooks, "hooks");
    }

    /**
     * Step 1: begins a run (or resumes the job's unfinished one) under {@code lease}.
     *
     * @param asked what asked for the run: {@link JobTrigger#SCHEDULE} (with its {@code slot}) or
     *     {@link JobTrigger#MANUAL} (slot null)
     * @return the started run, or empty when a scheduled occurrence was already completed (or, with a
     *     null slot, when the unfinished run it was asked to resume has finished meanwhile)
     * @throws LeaseLostException if the lease is no longer current (nothing written)
     * @throws org.leasesync.lease.StoreException if the database fails (nothing written)
     * @throws IllegalStateException if the stored checkpoint cannot be read (nothing written)
     */
    public <P> Optional<Started<P>> begin(Job<P> job, HeldLease lease, JobTrigger asked, Long slot) {
        Fence fence = lease.checkedFence();
        String name = job.name();
        return guard.inTransaction(fence, "begin a run of " + job.key(), c -> {
            long nowMs = time.now().toEpochMilli();
            store.recordHolder(c, name, instanceId, fence.epoch());
            Optional<JobStore.Checkpoint> cp = store.checkpoint(c, name);
            if (cp.isPresent()) {
                Optional<JobRun> earlier = store.run(c, cp.get().runId());
                boolean mine = earlier.isPresent()
                        && earlier.get().ownerId().equals(fence.owner().asString());
                JobTrigger trigger = mine ? JobTrigger.RECOVERY : JobTrigger.TAKEOVER;
                store.interruptRun(
                        c,
                        cp.get().runId(),
                        nowMs,
                        (mine ? "recovered" : "taken over") + " by instance " + instanceId + " (epoch " + fence.epoch()
                                + ")");
                P position = JobJson.read(name, cp.get().positionJson(), job.positionType());
                long runId = store.insertRun(
                        c,
                        name,
                        cp.get().slot(),
                        trigger,
                        instanceId,
                        fence.owner().asString(),
                        fence.epoch(),
                        cp.get().runId(),
                        nowMs,
                        cp.get().processed());
                store.writeCheckpoint(
                        c,
                        new JobStore.Checkpoint(
                                name,
                                runId,
                                cp.get().slot(),
                                cp.get().positionJson(),
                                cp.get().processed(),
                                fence.epoch(),
                                nowMs));
                return Optional.of(new Started<>(
                        job,
                        runId,
                        trigger,
                        cp.get().slot(),
                        fence.epoch(),
                        cp.get().runId(),
                        position,
                        cp.get().processed()));
            }
            if (asked == JobTrigger.SCHEDULE) {
                Long last = store.state(c, name)
                        .map(JobStore.State::lastCompletedSlot)
                        .orElse(null);
                if (slot == null || last != null && last >= slot) {
                    return Optional.<Started<P>>empty();
                }
            }
            P position = job.start(time.now());
            String positionJson = JobJson.write(position);
            long runId = store.insertRun(
                    c, name, slot, asked, instanceId, fence.owner().asString(), fence.epoch(), null, nowMs, 0);
            store.writeCheckpoint(c, new JobStore.Checkpoint(name, runId, slot, positionJson, 0, fence.epoch(), nowMs));
            return Optional.of(new Started<>(job, runId, asked, slot, fence.epoch(), null, position, 0));
        });
    }

    /**
     * Steps 2 and 3: runs the batches of a started run until it is done, fails, loses its lease, or
     * {@code stopRequested} says to stop. Never throws for a failure of the run: it is the report's
     * result.
     */
    public <P> JobRunReport finish(Started<P> run, HeldLease lease, BooleanSupplier stopRequested) {
        long startNanos = time.monotonicNanos();
        int batches = 0;
        try {
            while (true) {
                if (stopRequested.getAsBoolean()) {
                    return interrupted(run, lease, batches, startNanos, "the server is stopping");
                }
                Job.Batch<P> batch = batch(run, lease.checkedFence());
                batches++;
                run.position = batch.next();
                run.processed += batch.processed();
                if (batch.finished()) {
                    return report(run, JobResult.OK, batches, startNanos, null);
                }
                hooks.afterBatch(run.job(), run.runId, batches);
            }
        } catch (LeaseLostException e) {
            return report(
                    run, JobResult.LEASE_LOST, batches, startNanos, e.getMessage() + "; nothing more was written");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return interrupted(run, lease, batches, startNanos, "the job thread was interrupted");
        } catch (RuntimeException | Error e) {
            // An Error too (StackOverflowError, AssertionError, OutOfMemoryError): the run is ended as
            // failed, its checkpoint kept for the next run, instead of leaving it 'running' and the
            // scheduler's thread without its tick.
            String detail = e instanceof Error
                    ? FatalErrorHandler.describe(e)
                    : e.getMessage() == null ? e.toString() : e.getMessage();
            endQuietly(run, lease, JobResult.FAILED, detail);
            return report(run, JobResult.FAILED, batches, startNanos, detail);
        }
    }

    private <P> Job.Batch<P> batch(Started<P> run, Fence fence) {
        String name = run.job();
        return guard.inTransaction(fence, "run a batch of " + run.job.key() + " (run " + run.runId + ")", c -> {
            java.time.Instant now = time.now();
            Job.Batch<P> b = run.job.step(c, run.position, batchSize, now);
            long processed = run.processed + b.processed();
            long nowMs = now.toEpochMilli();
            if (b.finished()) {
                store.endRun(c, run.runId, JobResult.OK, nowMs, processed, null);
                store.deleteCheckpoint(c, name);
                store.trimRuns(c, name, KEEP_RUNS);
                if (run.slot != null) {
                    store.completeSlot(c, name, run.slot, nowMs);
                }
            } else {
                store.writeCheckpoint(
                        c,
                        new JobStore.Checkpoint(
                                name, run.runId, run.slot, JobJson.write(b.next()), processed, fence.epoch(), nowMs));
                store.setRunProcessed(c, run.runId, processed);
            }
            return b;
        });
    }

    private <P> JobRunReport interrupted(Started<P> run, HeldLease lease, int batches, long startNanos, String why) {
        endQuietly(run, lease, JobResult.INTERRUPTED, why + "; the checkpoint is kept for the next run");
        return report(run, JobResult.INTERRUPTED, batches, startNanos, why);
    }

    /** Marks the run ended (its checkpoint stays), fenced; a failure here is only reported in the detail. */
    private void endQuietly(Started<?> run, HeldLease lease, JobResult result, String detail) {
        try {
            guard.inTransaction(
                    lease.fence(),
                    "end run " + run.runId + " of " + run.job.key(),
                    c -> store.endRun(c, run.runId, result, time.now().toEpochMilli(), run.processed, detail));
        } catch (RuntimeException e) {
            // Lease lost or database unreachable: the row stays 'running' until the next run marks it interrupted.
        }
    }

    private JobRunReport report(Started<?> run, JobResult result, int batches, long startNanos, String detail) {
        return new JobRunReport(
                run.job(),
                run.runId,
                run.trigger,
                run.slot,
                run.epoch,
                run.resumedFrom,
                result,
                run.processed,
                batches,
                (time.monotonicNanos() - startNanos) / 1_000_000,
                detail);
    }

    /** The store the runner writes through (for the scheduler's and the admin view's reads). */
    JobStore store() {
        return store;
    }

    SqlDatabase db() {
        return db;
    }
}
