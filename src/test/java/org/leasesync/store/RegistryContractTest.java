package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.ProcessStart;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.ManualTime;

/**
 * The registry contract on SQL: every backend (H2 in memory, H2 file, PostgreSQL) must pass it. The
 * lease policy's part is {@link LeaseContractTest}; this adds what only the SQL store has: runs,
 * checkpoints and history under fences, guarded writes, damaged rows written by SQL. Time is a
 * {@link ManualTime}; no test sleeps.
 */
abstract class RegistryContractTest extends LeaseContractTest {

    LocalStore store;

    abstract LocalStore open() throws Exception;

    @Override
    LeaseStore openLeases() throws Exception {
        store = open();
        return store.leases();
    }

    @Override
    void damageOwner(LeaseKey key, String ownerText) {
        store.database().query("corrupt", c -> {
            try (var ps = c.prepareStatement("UPDATE lease SET owner_id = ? WHERE task_key = ?")) {
                ps.setString(1, ownerText);
                ps.setString(2, key.asString());
                return ps.executeUpdate();
            }
        });
    }

    @Override
    void damageTtl(LeaseKey key, Duration ttl) {
        store.database().query("corrupt", c -> {
            try (var ps = c.prepareStatement("UPDATE lease SET ttl_ms = ? WHERE task_key = ?")) {
                ps.setLong(1, ttl.toMillis());
                ps.setString(2, key.asString());
                return ps.executeUpdate();
            }
        });
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    /**
     * The last successful run is the one with the highest epoch, not the latest stored end time: a
     * later run by a process whose clock runs 3 h behind (or after a clock step back) ends "earlier".
     */
    @Test
    void theLastSuccessfulRunIsTheNewestEpochWhateverTheClocksOfItsWriters() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(first.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(first.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());
        a.release(first);
        time.jumpWall(Duration.ofHours(-3));
        HeldLease second = b.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(second.fence(), "run-2", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(second.fence(), "run-2", RunStatus.SUCCEEDED, Optional.empty(), time.now());
        assertThat(store.history().lastSucceeded(KEY).orElseThrow().runId()).isEqualTo("run-2");
        assertThat(store.history().lastRun(KEY).orElseThrow().runId()).isEqualTo("run-2");
    }

    @Test
    void processTableProvesAMissingProcessDeadButNotALiveOne() {
        String machine = OwnerId.localMachine();
        assertThat(machine).contains(":pidns");
        OwnerLiveness table = OwnerLiveness.processTable(machine);
        OwnerId self = OwnerId.forCurrentProcess();
        ProcessStart.SinceBoot start = (ProcessStart.SinceBoot) self.start();
        assertThat(table.isProvablyDead(self)).isFalse();
        long gone = Integer.MAX_VALUE - 7L; // above pid_max: never a process
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, start, "bb")))
                .isTrue();
        assertThat(table.isProvablyDead(new OwnerId("other-host:pidns1", gone, start, "bb")))
                .isFalse();
        // same host name, another pid namespace (a container or sandbox): its pids mean nothing here
        assertThat(table.isProvablyDead(new OwnerId(machine + "0", gone, start, "bb")))
                .isFalse();
        // same pid, other start tick: a recycled pid
        ProcessStart earlier = new ProcessStart.SinceBoot(start.ticks() - 100, start.bootId(), start.timeNamespace());
        assertThat(table.isProvablyDead(new OwnerId(machine, self.pid(), earlier, "cc")))
                .isTrue();
        // another boot (or another machine of the same name): not provable, whatever its pid
        ProcessStart otherBoot = new ProcessStart.SinceBoot(start.ticks(), "0".repeat(32), start.timeNamespace());
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, otherBoot, "dd")))
                .isFalse();
        // another time namespace: its ticks are offset, not comparable
        ProcessStart otherTimeNs = new ProcessStart.SinceBoot(start.ticks(), start.bootId(), start.timeNamespace() + 1);
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, otherTimeNs, "ee")))
                .isFalse();
        // the earlier form (start in epoch millis, derived from btime): never provable, even for a missing pid
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, 1_764_000_000_000L, "ff")))
                .isFalse();
        assertThat(table.isProvablyDead(new OwnerId(machine, self.pid(), 1_764_000_000_000L, "ff")))
                .isFalse();
        // without a pid namespace in the machine string nothing is provable
        assertThat(OwnerLiveness.processTable("this-host").isProvablyDead(new OwnerId("this-host", gone, start, "bb")))
                .isFalse();
    }

    @Test
    void guardedWriteWithStaleEpochIsRefusedAndWritesNothing() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(old.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL);
        HeldLease fresh = b.tryAcquire(KEY).orElseThrow();
        Checkpoint cp = checkpoint("run-1", old.fence().epoch(), "pulling", "c-9");
        assertThatThrownBy(() -> store.runs().saveCheckpoint(old.fence(), cp))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("alice|course_sync");
        assertThatThrownBy(() -> store.runs().enterStage(old.fence(), "run-1", Stage.PUSHING, time.now()))
                .isInstanceOf(LeaseLostException.class);
        assertThat(store.history().checkpoint(KEY)).isEmpty();
        assertThat(store.history().run("run-1").orElseThrow().stage()).contains(Stage.PULLING);
        store.runs()
                .saveCheckpoint(fresh.fence(), checkpoint("run-2", fresh.fence().epoch(), "pulling", "c-10"));
        assertThat(store.history().checkpoint(KEY).orElseThrow().pullCursor()).contains("c-10");
    }

    @Test
    void theStartOfARunInOneTransactionCommitsAllOfItOrNothing() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThatThrownBy(() -> store.runs().inOneTransaction(lease.fence(), "start", tx -> {
                    tx.insertRun(
                            lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
                    tx.saveCheckpoint(
                            lease.fence(), checkpoint("run-1", lease.fence().epoch(), "pulling", "c-1"));
                    assertThat(tx.runningRun(KEY)).map(RunRecord::runId).contains("run-1"); // sees its own writes
                    assertThat(tx.highestEpoch(KEY)).isEqualTo(lease.fence().epoch());
                    throw new IllegalStateException("boom after two writes");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom after two writes");
        assertThat(store.history().run("run-1")).isEmpty();
        assertThat(store.history().checkpoint(KEY)).isEmpty();
        assertThat(store.runs().highestEpoch(KEY)).isZero();

        String id = store.runs().inOneTransaction(lease.fence(), "start", tx -> {
            tx.insertRun(lease.fence(), "run-2", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
            tx.recordMergedTrigger("run-2", TaskSource.FOREGROUND, time.now());
            return "run-2";
        });
        RunRecord r = store.history().run(id).orElseThrow();
        assertThat(r.firstSource()).isEqualTo(TaskSource.MANUAL);
        assertThat(r.mergedSources()).containsExactly(TaskSource.FOREGROUND);
        assertThat(store.runs().highestEpoch(KEY)).isEqualTo(lease.fence().epoch());
    }

    @Test
    void theStartOfARunInOneTransactionIsRefusedWithAStaleFenceAndWritesNothing() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        time.elapse(TTL);
        assertThat(b.tryAcquire(KEY)).isEmpty(); // first sighting of a's row
        time.elapse(TTL);
        b.tryAcquire(KEY).orElseThrow();
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> store.runs().inOneTransaction(old.fence(), "start", tx -> {
                    ran.incrementAndGet();
                    tx.insertRun(old.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
                    return null;
                }))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("alice|course_sync");
        assertThat(ran).hasValue(0);
        assertThat(store.history().run("run-1")).isEmpty();
    }

    @Test
    void runRecordKeepsSourcesStagesAndResult() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        store.runs()
                .insertRun(lease.fence(), "run-1", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        time.elapse(Duration.ofSeconds(1));
        store.runs().recordMergedTrigger("run-1", TaskSource.MANUAL, time.now());
        store.runs().recordMergedTrigger("run-1", TaskSource.FOREGROUND, time.now());
        store.runs().enterStage(lease.fence(), "run-1", Stage.PUSHING, time.now());
        store.runs().enterStage(lease.fence(), "run-1", Stage.DONE, time.now());
        store.runs().finishRun(lease.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());
        RunRecord r = store.history().lastRun(KEY).orElseThrow();
        assertThat(r.firstSource()).isEqualTo(TaskSource.SCHEDULE);
        assertThat(r.mergedSources()).containsExactly(TaskSource.MANUAL, TaskSource.FOREGROUND);
        assertThat(r.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling", "pushing", "done");
        assertThat(r.status()).contains(RunStatus.SUCCEEDED);
        assertThat(r.epoch()).isEqualTo(1);
        assertThat(r.owner()).isEqualTo(a.owner().asString());
        assertThat(r.endedAt()).contains(time.now());
        assertThat(store.history().runningRun(KEY)).isEmpty();
        assertThat(store.history().history(KEY, 10)).hasSize(1);
        assertThat(store.history().lastRunPerKey()).extracting(RunRecord::runId).containsExactly("run-1");
    }

    @Test
    void aRunKeepsTheProgramAndServerOfTheStoreThatStartedItAndOlderRunsHaveNone() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(first.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(first.fence(), "run-1", RunStatus.FAILED, Optional.of("unreachable"), time.now());
        a.release(first);
        time.elapse(Duration.ofSeconds(1));
        org.leasesync.run.RunOrigin origin =
                new org.leasesync.run.RunOrigin("leasesync sync", "http://127.0.0.1:9/, http://127.0.0.1:10/");
        HeldLease second = b.tryAcquire(KEY).orElseThrow();
        store.runs()
                .withOrigin(origin)
                .insertRun(second.fence(), "run-2", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(second.fence(), "run-2", RunStatus.FAILED, Optional.of("unreachable"), time.now());
        RunRecord last = store.history().lastRun(KEY).orElseThrow();
        assertThat(last.runId()).isEqualTo("run-2");
        assertThat(last.origin()).contains(origin);
        assertThat(last.owner()).isEqualTo(b.owner().asString());
        assertThat(store.history().run("run-1").orElseThrow().origin()).isEmpty();
        assertThat(store.history().lastRunPerKey())
                .extracting(RunRecord::origin)
                .containsExactly(Optional.of(origin));
    }

    @Test
    void corruptStageTextIsReadBackAsUnknownNotAsACrash() throws Exception {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().saveCheckpoint(lease.fence(), checkpoint("run-1", 1, "pulling", null));
        store.database().query("corrupt", c -> {
            c.createStatement().executeUpdate("UPDATE run SET stage = 'teleporting'");
            return c.createStatement().executeUpdate("UPDATE checkpoint SET stage = 'half-done'");
        });
        RunRecord r = store.history().run("run-1").orElseThrow();
        assertThat(r.stage()).isEmpty();
        assertThat(r.stageText()).isEqualTo("teleporting");
        Checkpoint cp = store.history().checkpoint(KEY).orElseThrow();
        assertThat(cp.stage()).isEmpty();
        assertThat(cp.stageText()).isEqualTo("half-done");
    }

    @Test
    void checkpointRoundTripsAllPositionFields() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        Checkpoint cp = new Checkpoint(
                KEY,
                "run-1",
                1,
                Optional.of(Stage.PUSHING),
                "pushing",
                Optional.of("cur-7"),
                Optional.of("batch-1"),
                Optional.of("idem-1"),
                List.of("c1", "c2"),
                Optional.of(time.now()),
                time.now());
        store.runs().saveCheckpoint(lease.fence(), cp);
        assertThat(store.history().checkpoint(KEY)).contains(cp);
        assertThat(store.history().checkpoints()).containsExactly(cp);
    }

    // ---- job keys: the same lease rules, side by side with task keys ----

    @Test
    void unrenewedJobLeaseIsTakenOverAfterOneTtlAndTheOldHolderCanWriteNothing() {
        JdbcGuard guard = new JdbcGuard(store.database());
        HeldLease old = a.tryAcquire(JOB).orElseThrow();
        String written = guard.inTransaction(old.fence(), "write under the job", c -> "written");
        assertThat(written).isEqualTo("written");
        assertThat(b.tryAcquire(JOB)).isEmpty(); // b starts observing
        time.elapse(TTL.minusMillis(1));
        assertThat(b.tryAcquire(JOB)).isEmpty();
        time.elapse(Duration.ofMillis(1));
        HeldLease taken = b.tryAcquire(JOB).orElseThrow();
        assertThat(taken.fence().epoch()).isEqualTo(2);
        AtomicInteger staleWorkRan = new AtomicInteger();
        assertThatThrownBy(() -> guard.inTransaction(
                        old.fence(), "write under the old job lease", c -> staleWorkRan.incrementAndGet()))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("job:expire-idempotency-keys")
                .hasMessageContaining("epoch 1");
        assertThat(staleWorkRan).hasValue(0);
        Integer two = guard.inTransaction(taken.fence(), "write under the new job lease", c -> 2);
        assertThat(two).isEqualTo(2);
        assertThat(store.leases().renew(old.fence(), TTL, time.now())).isFalse(); // the store refuses the old epoch
        assertThat(a.renew(old)).isFalse();
        assertThat(old.lostSignal()).isCompleted();
        assertThat(old.isValid()).isFalse();
        assertThat(a.release(old)).isFalse();
        assertThat(b.lease(JOB).orElseThrow().owner()).contains(b.owner());
    }

    @Test
    void aJobKeysFenceIsRefusedByTheRunStoreNamingTheKeyAndWritesNothing() {
        HeldLease job = a.tryAcquire(JOB).orElseThrow();
        assertThatThrownBy(() -> store.runs()
                        .insertRun(
                                job.fence(), "run-j", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job:expire-idempotency-keys")
                .hasMessageContaining("not a task key");
        assertThatThrownBy(() ->
                        store.runs().finishRun(job.fence(), "run-j", RunStatus.FAILED, Optional.empty(), time.now()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job:expire-idempotency-keys");
        assertThatThrownBy(() -> job.fence().taskKey())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job:expire-idempotency-keys");
        assertThat(store.history().run("run-j")).isEmpty();
        assertThat(store.history().lastRunPerKey()).isEmpty();
        assertThat(a.lease(JOB).orElseThrow().owner()).contains(a.owner());
    }

    Checkpoint checkpoint(String runId, long epoch, String stage, String cursor) {
        return new Checkpoint(
                KEY,
                runId,
                epoch,
                Stage.tryParse(stage),
                stage,
                Optional.ofNullable(cursor),
                Optional.empty(),
                Optional.empty(),
                List.of(),
                Optional.empty(),
                time.now());
    }
}
