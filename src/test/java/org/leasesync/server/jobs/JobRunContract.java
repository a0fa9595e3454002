package org.leasesync.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.store.JdbcLeaseStore;
import org.leasesync.store.SqlDialect;
import org.leasesync.testing.ManualTime;

/**
 * {@link JobRunner} under real leases on the server's real schema, H2 and PostgreSQL (subclasses):
 * a run taken over from a frozen instance is resumed from its checkpoint (same cutoff, same
 * position) and recorded as a takeover; the frozen instance, woken, writes nothing more; a scheduled
 * occurrence runs once; a failed batch is recovered from its checkpoint.
 */
abstract class JobRunContract {

    static final Duration TTL = Duration.ofSeconds(10);
    static final Duration RETENTION = Duration.ofHours(1);
    static final Instant START = Instant.parse("2026-11-30T10:00:00Z");

    SchemaDb db;
    ManualTime timeA;
    ManualTime timeB;
    TaskRegistry a;
    TaskRegistry b;
    JobStore store;

    abstract SqlDialect dialect();

    @BeforeEach
    void open() {
        db = SchemaDb.of(dialect());
        timeA = new ManualTime(START);
        timeB = new ManualTime(START);
        a = registry(new OwnerId("host-a", 101, 1, "a1"), timeA);
        b = registry(new OwnerId("host-b", 202, 1, "b2"), timeB);
        store = new JobStore();
    }

    @AfterEach
    void close() {
        db.close();
    }

    TaskRegistry registry(OwnerId owner, ManualTime time) {
        return new TaskRegistry(new JdbcLeaseStore(db.db), owner, TTL, time, OwnerLiveness.neverProvable());
    }

    JobRunner runner(String instance, ManualTime time, int batchSize, JobHooks hooks) {
        return new JobRunner(db.db, instance, time, batchSize, hooks);
    }

    void oldAuditRows(int n) throws SQLException {
        for (int i = 0; i < n; i++) {
            auditRow(START.minus(RETENTION).toEpochMilli() - 60_000);
        }
    }

    void auditRow(long atMs) throws SQLException {
        db.update(
                "INSERT INTO request_audit (at_ms, path_user, scope, op, status, applied, duplicates, conflicts)"
                        + " VALUES (?, 'alice', 'backup', 'pull', 200, '', '', '')",
                atMs);
    }

    Optional<JobStore.Checkpoint> checkpoint(String job) {
        return db.db.query("read", c -> store.checkpoint(c, job));
    }

    List<JobRun> runs(String job) {
        return db.db.query("read", c -> store.lastRuns(c, job, 10));
    }

    JobStore.State state(String job) {
        return db.db.query("read", c -> store.state(c, job)).orElseThrow();
    }

    @Test
    void aRunTakenOverFromAFrozenInstanceResumesItsCheckpointAndTheWokenInstanceWritesNothingMore() throws Exception {
        oldAuditRows(10);
        PruneAuditJob job = new PruneAuditJob(RETENTION);
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        JobRunner runnerA = runner("instance-a", timeA, 4, (name, runId, batches) -> {
            paused.countDown();
            wake.await(); // instance A freezes here after its first batch
        });
        HeldLease leaseA = a.tryAcquire(job.key()).orElseThrow();
        JobRunner.Started<PruneAuditJob.Position> runA =
                runnerA.begin(job, leaseA, JobTrigger.SCHEDULE, 7L).orElseThrow();
        CompletableFuture<JobRunReport> reportA =
                CompletableFuture.supplyAsync(() -> runnerA.finish(runA, leaseA, () -> false));
        assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
        JobStore.Checkpoint atFreeze = checkpoint(job.name()).orElseThrow();
        assertThat(atFreeze.runId()).isEqualTo(runA.runId());
        assertThat(atFreeze.processed()).isEqualTo(4);
        long cutoffA = JobJson.read(job.name(), atFreeze.positionJson(), PruneAuditJob.Position.class)
                .cutoffMs();
        // A row younger than A's cutoff but old enough for a run started later: a restart would delete it.
        auditRow(cutoffA + 1);

        // B sees A's lease unchanged for a whole TTL (A no longer renews) and takes the job over.
        assertThat(b.tryAcquire(job.key())).isEmpty();
        timeB.elapse(TTL);
        HeldLease leaseB = b.tryAcquire(job.key()).orElseThrow();
        assertThat(leaseB.fence().epoch()).isEqualTo(2);
        JobRunner runnerB = runner("instance-b", timeB, 4, JobHooks.NONE);
        JobRunner.Started<PruneAuditJob.Position> runB =
                runnerB.begin(job, leaseB, JobTrigger.SCHEDULE, 8L).orElseThrow();
        assertThat(runB.trigger()).isEqualTo(JobTrigger.TAKEOVER);
        assertThat(runB.resumedFrom()).isEqualTo(runA.runId());
        JobRunReport reportB = runnerB.finish(runB, leaseB, () -> false);

        assertThat(reportB.result()).isEqualTo(JobResult.OK);
        assertThat(reportB.processed()).as("counted on from the checkpoint's 4").isEqualTo(10);
        assertThat(reportB.batches()).isEqualTo(2);
        assertThat(reportB.slot())
                .as("the interrupted occurrence, not B's own slot")
                .isEqualTo(7L);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit"))
                .as("only the row after A's cutoff is left")
                .isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit WHERE at_ms = " + (cutoffA + 1)))
                .isEqualTo(1);
        List<JobRun> runs = runs(job.name());
        assertThat(runs).hasSize(2);
        JobRun second = runs.get(0);
        JobRun first = runs.get(1);
        assertThat(first.result()).isEqualTo(JobResult.INTERRUPTED);
        assertThat(first.instanceId()).isEqualTo("instance-a");
        assertThat(first.epoch()).isEqualTo(1);
        assertThat(first.detail()).contains("taken over by instance instance-b (epoch 2)");
        assertThat(second.trigger()).isEqualTo(JobTrigger.TAKEOVER);
        assertThat(second.instanceId()).isEqualTo("instance-b");
        assertThat(second.epoch()).isEqualTo(2);
        assertThat(second.resumedFrom()).isEqualTo(first.runId());
        assertThat(second.result()).isEqualTo(JobResult.OK);
        assertThat(second.processed()).isEqualTo(10);
        assertThat(checkpoint(job.name())).isEmpty();
        assertThat(state(job.name()).lastCompletedSlot()).isEqualTo(7L);

        // A wakes up: its local lease still looks valid (its clock did not move), so its next batch
        // reaches the database, whose fence refuses it. Nothing of A's is written any more.
        wake.countDown();
        JobRunReport lateA = reportA.get(30, TimeUnit.SECONDS);
        assertThat(lateA.result()).isEqualTo(JobResult.LEASE_LOST);
        assertThat(lateA.detail()).contains("job:prune-audit").contains("nothing more was written");
        assertThat(db.count("SELECT COUNT(*) FROM request_audit")).isEqualTo(1);
        assertThat(runs(job.name())).containsExactly(second, first);
        assertThat(checkpoint(job.name())).isEmpty();
        assertThat(state(job.name()).holderEpoch()).isEqualTo(2L);
    }

    @Test
    void aScheduledOccurrenceCompletedElsewhereIsSkippedAndAManualRunCompletesNoOccurrence() throws Exception {
        PruneAuditJob job = new PruneAuditJob(RETENTION);
        JobRunner runnerA = runner("instance-a", timeA, 100, JobHooks.NONE);
        JobRunner runnerB = runner("instance-b", timeB, 100, JobHooks.NONE);
        HeldLease leaseA = a.tryAcquire(job.key()).orElseThrow();
        JobRunReport done = runnerA.finish(
                runnerA.begin(job, leaseA, JobTrigger.SCHEDULE, 5L).orElseThrow(), leaseA, () -> false);
        assertThat(done.result()).isEqualTo(JobResult.OK);
        assertThat(a.release(leaseA)).isTrue();

        HeldLease leaseB = b.tryAcquire(job.key()).orElseThrow();
        assertThat(runnerB.begin(job, leaseB, JobTrigger.SCHEDULE, 5L))
                .as("slot 5 is done")
                .isEmpty();
        assertThat(runnerB.begin(job, leaseB, JobTrigger.SCHEDULE, 4L))
                .as("an older slot too")
                .isEmpty();
        assertThat(runnerB.begin(job, leaseB, JobTrigger.SCHEDULE, null))
                .as("nothing to resume")
                .isEmpty();
        JobRunner.Started<PruneAuditJob.Position> manual =
                runnerB.begin(job, leaseB, JobTrigger.MANUAL, null).orElseThrow();
        assertThat(runnerB.finish(manual, leaseB, () -> false).result()).isEqualTo(JobResult.OK);
        JobRunner.Started<PruneAuditJob.Position> six =
                runnerB.begin(job, leaseB, JobTrigger.SCHEDULE, 6L).orElseThrow();
        assertThat(runnerB.finish(six, leaseB, () -> false).result()).isEqualTo(JobResult.OK);

        List<JobRun> runs = runs(job.name());
        assertThat(runs)
                .extracting(r -> r.trigger().wire() + "@" + r.slot() + " by " + r.instanceId() + " epoch " + r.epoch())
                .containsExactly(
                        "schedule@6 by instance-b epoch 2",
                        "manual@null by instance-b epoch 2",
                        "schedule@5 by instance-a epoch 1");
        assertThat(state(job.name()).lastCompletedSlot()).isEqualTo(6L);
    }

    @Test
    void aFailedBatchKeepsTheCheckpointAndTheNextRunRecoversFromIt() throws Exception {
        oldAuditRows(10);
        AtomicBoolean failNext = new AtomicBoolean();
        PruneAuditJob prune = new PruneAuditJob(RETENTION);
        Job<PruneAuditJob.Position> flaky = new Job<>() {
            @Override
            public JobKey key() {
                return prune.key();
            }

            @Override
            public Class<PruneAuditJob.Position> positionType() {
                return prune.positionType();
            }

            @Override
            public PruneAuditJob.Position start(Instant now) {
                return prune.start(now);
            }

            @Override
            public Batch<PruneAuditJob.Position> step(
                    Connection c, PruneAuditJob.Position from, int batchSize, Instant now) throws SQLException {
                Batch<PruneAuditJob.Position> batch = prune.step(c, from, batchSize, now);
                if (failNext.getAndSet(false)) {
                    throw new SQLException("statement failed after deleting (injected)", "XX000");
                }
                return batch;
            }
        };
        JobRunner runnerA = runner("instance-a", timeA, 4, (name, runId, batches) -> failNext.set(true));
        HeldLease lease = a.tryAcquire(flaky.key()).orElseThrow();
        JobRunReport failed = runnerA.finish(
                runnerA.begin(flaky, lease, JobTrigger.SCHEDULE, 3L).orElseThrow(), lease, () -> false);
        assertThat(failed.result()).isEqualTo(JobResult.FAILED);
        assertThat(failed.detail()).contains("injected");
        assertThat(failed.processed()).isEqualTo(4);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit"))
                .as("the failed batch was rolled back")
                .isEqualTo(6);
        assertThat(checkpoint(flaky.name()).orElseThrow().processed()).isEqualTo(4);
        assertThat(a.release(lease)).isTrue();

        JobRunner healthy = runner("instance-a", timeA, 4, JobHooks.NONE);
        HeldLease again = a.tryAcquire(flaky.key()).orElseThrow();
        JobRunner.Started<PruneAuditJob.Position> recovery =
                healthy.begin(flaky, again, JobTrigger.SCHEDULE, 4L).orElseThrow();
        assertThat(recovery.trigger()).isEqualTo(JobTrigger.RECOVERY);
        assertThat(recovery.resumedFrom()).isEqualTo(failed.runId());
        JobRunReport ok = healthy.finish(recovery, again, () -> false);
        assertThat(ok.result()).isEqualTo(JobResult.OK);
        assertThat(ok.processed()).isEqualTo(10);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit")).isZero();
        List<JobRun> runs = runs(flaky.name());
        assertThat(runs).extracting(r -> r.result().wire()).containsExactly("ok", "failed");
        assertThat(runs.get(1).detail()).contains("injected");
        assertThat(state(flaky.name()).lastCompletedSlot()).isEqualTo(3L);
    }

    /** An Error in a batch ended nothing; the run stayed 'running' and the tick died. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"stack-overflow", "assertion"})
    void aBatchEndingWithAnErrorEndsTheRunAsFailedRollsItBackAndTheNextRunRecovers(String kind) throws Exception {
        oldAuditRows(10);
        AtomicBoolean failNext = new AtomicBoolean();
        PruneAuditJob prune = new PruneAuditJob(RETENTION);
        Job<PruneAuditJob.Position> broken = new Job<>() {
            @Override
            public JobKey key() {
                return prune.key();
            }

            @Override
            public Class<PruneAuditJob.Position> positionType() {
                return prune.positionType();
            }

            @Override
            public PruneAuditJob.Position start(Instant now) {
                return prune.start(now);
            }

            @Override
            public Batch<PruneAuditJob.Position> step(
                    Connection c, PruneAuditJob.Position from, int batchSize, Instant now) throws SQLException {
                Batch<PruneAuditJob.Position> batch = prune.step(c, from, batchSize, now);
                if (failNext.getAndSet(false)) {
                    if (kind.equals("stack-overflow")) {
                        recurse(1);
                    }
                    throw new AssertionError("position invariant broke");
                }
                return batch;
            }
        };
        JobRunner runnerA = runner("instance-a", timeA, 4, (name, runId, batches) -> failNext.set(true));
        HeldLease lease = a.tryAcquire(broken.key()).orElseThrow();
        JobRunReport failed = runnerA.finish(
                runnerA.begin(broken, lease, JobTrigger.SCHEDULE, 3L).orElseThrow(), lease, () -> false);
        assertThat(failed.result()).isEqualTo(JobResult.FAILED);
        assertThat(failed.detail())
                .isEqualTo(
                        kind.equals("stack-overflow")
                                ? "internal error (StackOverflowError)"
                                : "internal error (AssertionError: position invariant broke)");
        assertThat(db.count("SELECT COUNT(*) FROM request_audit"))
                .as("the failed batch was rolled back")
                .isEqualTo(6);
        assertThat(runs(broken.name())).extracting(r -> r.result().wire()).containsExactly("failed");
        assertThat(a.release(lease)).isTrue();

        JobRunner healthy = runner("instance-a", timeA, 4, JobHooks.NONE);
        HeldLease again = a.tryAcquire(broken.key()).orElseThrow();
        JobRunner.Started<PruneAuditJob.Position> recovery =
                healthy.begin(broken, again, JobTrigger.SCHEDULE, 4L).orElseThrow();
        assertThat(recovery.trigger()).isEqualTo(JobTrigger.RECOVERY);
        assertThat(healthy.finish(recovery, again, () -> false).result()).isEqualTo(JobResult.OK);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit")).isZero();
    }

    private static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    @Test
    void aCompletedRunCutsTheJobsHistoryToItsNewestRuns() throws Exception {
        PruneAuditJob job = new PruneAuditJob(RETENTION);
        for (int i = 0; i < JobRunner.KEEP_RUNS + 20; i++) {
            db.update(
                    "INSERT INTO job_runs (job_name, slot, run_trigger, instance_id, owner_id, epoch, started_at_ms,"
                            + " ended_at_ms, result, processed) VALUES (?, ?, 'schedule', 'old', 'o', 1, 0, 0, 'ok', 0)",
                    job.name(),
                    i);
        }
        db.update(
                "INSERT INTO job_runs (job_name, slot, run_trigger, instance_id, owner_id, epoch, started_at_ms,"
                        + " ended_at_ms, result, processed) VALUES ('purge-tombstones', 1, 'schedule', 'old', 'o', 1, 0, 0, 'ok', 0)");
        JobRunner runnerA = runner("instance-a", timeA, 10, JobHooks.NONE);
        HeldLease lease = a.tryAcquire(job.key()).orElseThrow();
        JobRunReport report = runnerA.finish(
                runnerA.begin(job, lease, JobTrigger.MANUAL, null).orElseThrow(), lease, () -> false);
        assertThat(db.count("SELECT COUNT(*) FROM job_runs WHERE job_name = 'prune-audit'"))
                .isEqualTo(JobRunner.KEEP_RUNS);
        assertThat(db.count("SELECT MIN(slot) FROM job_runs WHERE job_name = 'prune-audit'"))
                .as("the oldest went")
                .isEqualTo(21);
        assertThat(runs(job.name()).get(0).runId()).isEqualTo(report.runId());
        assertThat(db.count("SELECT COUNT(*) FROM job_runs WHERE job_name = 'purge-tombstones'"))
                .as("other jobs' runs stay")
                .isEqualTo(1);
    }

    @Test
    void aStopRequestEndsTheRunAsInterruptedAndKeepsItsCheckpoint() throws Exception {
        oldAuditRows(10);
        PruneAuditJob job = new PruneAuditJob(RETENTION);
        AtomicBoolean stop = new AtomicBoolean();
        JobRunner runnerA = runner("instance-a", timeA, 3, (name, runId, batches) -> stop.set(batches == 2));
        HeldLease lease = a.tryAcquire(job.key()).orElseThrow();
        JobRunReport report = runnerA.finish(
                runnerA.begin(job, lease, JobTrigger.MANUAL, null).orElseThrow(), lease, stop::get);
        assertThat(report.result()).isEqualTo(JobResult.INTERRUPTED);
        assertThat(report.processed()).isEqualTo(6);
        JobRun run = db.db.query("read", c -> store.run(c, report.runId())).orElseThrow();
        assertThat(run.result()).isEqualTo(JobResult.INTERRUPTED);
        assertThat(run.endedAtMs()).isNotNull();
        Optional<JobStore.Checkpoint> cp = checkpoint(job.name());
        assertThat(cp).isPresent();
        assertThat(cp.get().processed()).isEqualTo(6);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit")).isEqualTo(4);
    }
}
