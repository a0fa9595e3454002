package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskRegistry;

/** The coordinator's trigger decisions: start, join here or in another process, follow-up, needs attention. */
class CoordinatorTest extends CoordinatorFixture {

    @Test
    void startsARunWhenTheKeyIsFree() throws Exception {
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded());
        SubmitResult r = c.submit(KEY, TaskSource.MANUAL);
        assertThat(r).isInstanceOfSatisfying(SubmitResult.Started.class, s -> {
            assertThat(s.handle().key()).isEqualTo(KEY);
            assertThat(s.handle().epoch()).isEqualTo(1);
        });
        assertThat(await(r).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(store.history().lastRun(KEY).orElseThrow().firstSource()).isEqualTo(TaskSource.MANUAL);
    }

    @Test
    void joinsRunningSyncInsteadOfStartingASecond() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runsStarted = new AtomicInteger();
        Coordinator c = coordinator("a", ctx -> {
            runsStarted.incrementAndGet();
            release.await();
            return RunOutcome.succeeded();
        });
        SubmitResult first = c.submit(KEY, TaskSource.SCHEDULE);
        SubmitResult second = c.submit(KEY, TaskSource.MANUAL);
        SubmitResult third = c.submit(KEY, TaskSource.FOREGROUND);
        assertThat(second).isInstanceOfSatisfying(SubmitResult.Joined.class, j -> {
            assertThat(j.running().firstSource()).isEqualTo(TaskSource.SCHEDULE);
            assertThat(j.running().runId())
                    .isEqualTo(((SubmitResult.Started) first).handle().runId());
        });
        assertThat(third).isInstanceOf(SubmitResult.Joined.class);
        release.countDown();
        await(first);
        assertThat(runsStarted.get()).isEqualTo(1);
        RunRecord r = store.history().lastRun(KEY).orElseThrow();
        assertThat(r.mergedSources()).containsExactly(TaskSource.MANUAL, TaskSource.FOREGROUND);
    }

    @Test
    void triggerFromAnotherOwnerJoinsTheRunRecordedInTheDatabase() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Coordinator a = coordinator("a", ctx -> {
            release.await();
            return RunOutcome.succeeded();
        });
        Coordinator b = coordinator("b", ctx -> RunOutcome.succeeded());
        SubmitResult first = a.submit(KEY, TaskSource.SCHEDULE);
        SubmitResult joined = b.submit(KEY, TaskSource.MANUAL);
        assertThat(joined).isInstanceOfSatisfying(SubmitResult.Joined.class, j -> {
            assertThat(j.running().local()).isFalse();
            assertThat(j.running().owner()).isEqualTo(a.registry().owner().asString());
            assertThat(j.running().stage()).contains(Stage.PULLING);
        });
        release.countDown();
        await(first);
        assertThat(store.history().lastRun(KEY).orElseThrow().mergedSources()).containsExactly(TaskSource.MANUAL);
    }

    @Test
    void manualFollowUpRunsExactlyOnceAfterTheRunningRunAndLaterTriggersMergeIntoIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch secondDone = new CountDownLatch(2);
        Coordinator c = coordinator("a", ctx -> {
            if (runs.incrementAndGet() == 1) {
                release.await();
            }
            return RunOutcome.succeeded();
        });
        c.addListener(e -> {
            if (e.kind() == RunEvent.Kind.FINISHED) {
                secondDone.countDown();
            }
        });
        SubmitResult first = c.submit(KEY, TaskSource.SCHEDULE);
        SubmitResult follow = c.submit(new TriggerRequest(KEY, TaskSource.MANUAL, true, false));
        SubmitResult again = c.submit(new TriggerRequest(KEY, TaskSource.MANUAL, true, false));
        SubmitResult fg = c.submit(KEY, TaskSource.FOREGROUND);
        assertThat(follow)
                .isInstanceOfSatisfying(
                        SubmitResult.FollowUpQueued.class,
                        f -> assertThat(f.alreadyQueued()).isFalse());
        assertThat(again)
                .isInstanceOfSatisfying(
                        SubmitResult.FollowUpQueued.class,
                        f -> assertThat(f.alreadyQueued()).isTrue());
        assertThat(fg)
                .isInstanceOfSatisfying(
                        SubmitResult.Joined.class,
                        j -> assertThat(j.running().followUpQueued()).isTrue());
        release.countDown();
        await(first);
        assertThat(secondDone.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isEqualTo(2);
        List<RunRecord> history = store.history().history(KEY, 10);
        assertThat(history).hasSize(2);
        RunRecord followUp = history.get(0);
        assertThat(followUp.firstSource()).isEqualTo(TaskSource.MANUAL);
        assertThat(followUp.mergedSources()).containsExactly(TaskSource.MANUAL, TaskSource.FOREGROUND);
    }

    @Test
    void needsAttentionBlocksFurtherRunsUntilTheUserChecksAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Coordinator c = coordinator(
                "a",
                ctx -> calls.incrementAndGet() == 1
                        ? RunOutcome.needsAttention("a push was sent but its result could not be confirmed")
                        : RunOutcome.succeeded());
        assertThat(await(c.submit(KEY, TaskSource.MANUAL)).status()).isEqualTo(RunStatus.NEEDS_ATTENTION);
        SubmitResult blocked = c.submit(KEY, TaskSource.SCHEDULE);
        assertThat(blocked)
                .isInstanceOfSatisfying(
                        SubmitResult.NeedsAttention.class,
                        n -> assertThat(n.reason()).contains("could not be confirmed"));
        assertThat(calls.get()).isEqualTo(1);
        RunResult checked = await(c.submit(new TriggerRequest(KEY, TaskSource.MANUAL, false, true)));
        assertThat(checked.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.Started.class);
    }

    /** Regression (CI flake): a join that landed between the holder's grant and its run row showed "(starting)". */
    @Test
    void aTriggerBetweenAnotherProcesssGrantAndItsRunRecordJoinsThatRunAndIsRecordedOnIt() throws Exception {
        TaskRegistry other = new TaskRegistry(
                store.leases(), new OwnerId("test", 4243, 1, "0ef"), TTL, time, OwnerLiveness.neverProvable());
        HeldLease held = other.tryAcquire(KEY).orElseThrow();
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded());
        var joined = workers.submit(() -> c.submit(KEY, TaskSource.FOREGROUND));
        Thread.sleep(150); // the trigger is waiting for the holder's run record
        assertThat(joined.isDone()).isFalse();
        store.runs()
                .insertRun(held.fence(), "other-run", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        assertThat(joined.get(10, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(
                        SubmitResult.Joined.class,
                        j -> assertThat(j.running().runId()).isEqualTo("other-run"));
        assertThat(store.history().run("other-run").orElseThrow().mergedSources())
                .containsExactly(TaskSource.FOREGROUND);
    }

    /**
     * A stall between the read and the join: a trigger read the lease row while its holder was
     * alive, then its database calls stalled while the holder was killed; it joined the dead run 3.6 s
     * after the kill. The join now asks the registry once more, which reads the row again and takes
     * the key over from the holder that is provably dead by then.
     */
    @Test
    void aHolderThatDiesBetweenTheHeldAnswerAndTheJoinIsTakenOverInsteadOfJoined() throws Exception {
        TaskRegistry other = new TaskRegistry(
                store.leases(), new OwnerId("test", 4243, 1, "0ef"), TTL, time, OwnerLiveness.neverProvable());
        HeldLease held = other.tryAcquire(KEY).orElseThrow();
        store.runs()
                .insertRun(held.fence(), "other-run", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        AtomicInteger asked = new AtomicInteger();
        OwnerLiveness diesAfterFirstLook = owner -> {
            if (asked.getAndIncrement() == 0) {
                time.elapse(java.time.Duration.ofSeconds(1)); // the stall after the read: the holder dies meanwhile
                return false;
            }
            return true;
        };
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, "a"),
                TTL,
                time,
                diesAfterFirstLook);
        Coordinator c = new Coordinator(
                registry, store.runs(), ctx -> RunOutcome.succeeded(), workers, new LeaseKeeper(registry), null, null);

        SubmitResult r = c.submit(KEY, TaskSource.SCHEDULE);

        assertThat(r)
                .as("a trigger after the holder died must not join its run")
                .isInstanceOfSatisfying(
                        SubmitResult.Started.class,
                        s -> assertThat(s.handle().epoch()).isEqualTo(2));
        assertThat(asked.get()).isEqualTo(2);
        assertThat(await(r).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(store.history().run("other-run").orElseThrow().mergedSources())
                .isEmpty();
    }

    @Test
    void aTriggerWhileAnotherProcessReleasesItsFinishedRunStartsANewRunInsteadOfJoiningTheOldOne() throws Exception {
        TaskRegistry other = new TaskRegistry(
                store.leases(), new OwnerId("test", 4243, 1, "0ef"), TTL, time, OwnerLiveness.neverProvable());
        HeldLease held = other.tryAcquire(KEY).orElseThrow();
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded());
        var submitted = workers.submit(() -> c.submit(KEY, TaskSource.MANUAL));
        Thread.sleep(150);
        other.release(held);
        RunResult r = await(submitted.get(10, TimeUnit.SECONDS));
        assertThat(r.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(store.history().lastRun(KEY).orElseThrow().firstSource()).isEqualTo(TaskSource.MANUAL);
    }

    /**
     * A lease table that went back in time (its row reset) granted epochs below the
     * recorded runs; a needs-attention run of the higher epoch stayed "last" for good, so even a
     * successful check-again never unblocked the key.
     */
    @Test
    void aLeaseTableBehindTheRunRecordsRaisesTheEpochSoCheckAgainUnblocksTheKey() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Coordinator c = coordinator(
                "a",
                ctx -> calls.incrementAndGet() == 1
                        ? RunOutcome.needsAttention("a push was sent but its result could not be confirmed")
                        : RunOutcome.succeeded());
        assertThat(await(c.submit(KEY, TaskSource.MANUAL)).status()).isEqualTo(RunStatus.NEEDS_ATTENTION);
        store.database().query("reset", conn -> {
            conn.createStatement().executeUpdate("UPDATE run SET epoch = 50");
            return conn.createStatement().executeUpdate("DELETE FROM lease");
        });
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.NeedsAttention.class);

        SubmitResult checked = c.submit(new TriggerRequest(KEY, TaskSource.MANUAL, false, true));
        assertThat(((SubmitResult.Started) checked).handle().epoch()).isEqualTo(51);
        assertThat(await(checked).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(store.leases().read(KEY).orElseThrow().epoch()).isEqualTo(51);

        SubmitResult next = c.submit(KEY, TaskSource.SCHEDULE);
        assertThat(next).as("no longer blocked").isInstanceOf(SubmitResult.Started.class);
        assertThat(((SubmitResult.Started) next).handle().epoch()).isEqualTo(52);
        assertThat(await(next).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    /** A "running" record of a higher epoch than the lease table grants was never recovered: it is now. */
    @Test
    void aRunningRecordAboveTheGrantedEpochIsRecoveredInsteadOfStayingRunningForever() throws Exception {
        crashedRunWithCheckpoint(KEY, "pulling", null);
        store.database().query("reset", conn -> {
            conn.createStatement().executeUpdate("UPDATE run SET epoch = 7");
            conn.createStatement().executeUpdate("UPDATE checkpoint SET epoch = 7");
            return conn.createStatement().executeUpdate("DELETE FROM lease");
        });
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded());
        SubmitResult r = c.submit(KEY, TaskSource.SCHEDULE);
        assertThat(((SubmitResult.Started) r).handle().epoch()).isEqualTo(8);
        assertThat(await(r).status()).isEqualTo(RunStatus.SUCCEEDED);
        RunRecord old = store.history().run("crashed-alice").orElseThrow();
        assertThat(old.status()).contains(RunStatus.FAILED);
        assertThat(old.error().orElseThrow()).contains("interrupted");
        assertThat(store.history().runningRun(KEY)).isEmpty();
    }
}
