package org.leasesync.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/** The coordinator against a real in-memory H2 store and real worker threads. */
class CoordinatorTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final Duration TTL = Duration.ofSeconds(60);

    final LocalStore store = LocalStore.openInMemory();
    final ManualTime time = new ManualTime();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final List<RunEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    Coordinator coordinator(String nonce, TaskRunner runner) {
        TaskRegistry registry = new TaskRegistry(store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, nonce), TTL, time, OwnerLiveness.neverProvable());
        Coordinator c = new Coordinator(registry, store.runs(), runner, workers, new LeaseKeeper(registry), null, null);
        c.addListener(events::add);
        return c;
    }

    static RunResult await(SubmitResult r) throws Exception {
        assertThat(r).isInstanceOf(SubmitResult.Started.class);
        return ((SubmitResult.Started) r).handle().completion().get(30, TimeUnit.SECONDS);
    }

    @Test
    void startsARunAndRecordsItsStagesAndSuccess() throws Exception {
        Coordinator c = coordinator("a", ctx -> {
            ctx.enterStage(Stage.PUSHING);
            ctx.enterStage(Stage.DONE);
            return RunOutcome.succeeded();
        });
        RunResult result = await(c.submit(KEY, TaskSource.MANUAL));
        assertThat(result.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(result.recorded()).isTrue();
        RunRecord r = store.runs().lastRun(KEY).orElseThrow();
        assertThat(r.status()).contains(RunStatus.SUCCEEDED);
        assertThat(r.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling", "pushing", "done");
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(events).extracting(RunEvent::kind).contains(RunEvent.Kind.STARTED, RunEvent.Kind.FINISHED);
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
            assertThat(j.running().runId()).isEqualTo(((SubmitResult.Started) first).handle().runId());
        });
        assertThat(third).isInstanceOf(SubmitResult.Joined.class);
        release.countDown();
        await(first);
        assertThat(runsStarted.get()).isEqualTo(1);
        RunRecord r = store.runs().lastRun(KEY).orElseThrow();
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
        assertThat(store.runs().lastRun(KEY).orElseThrow().mergedSources()).containsExactly(TaskSource.MANUAL);
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
        assertThat(follow).isInstanceOfSatisfying(SubmitResult.FollowUpQueued.class,
                f -> assertThat(f.alreadyQueued()).isFalse());
        assertThat(again).isInstanceOfSatisfying(SubmitResult.FollowUpQueued.class,
                f -> assertThat(f.alreadyQueued()).isTrue());
        assertThat(fg).isInstanceOfSatisfying(SubmitResult.Joined.class,
                j -> assertThat(j.running().followUpQueued()).isTrue());
        release.countDown();
        await(first);
        assertThat(secondDone.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isEqualTo(2);
        List<RunRecord> history = store.runs().history(KEY, 10);
        assertThat(history).hasSize(2);
        RunRecord followUp = history.get(0);
        assertThat(followUp.firstSource()).isEqualTo(TaskSource.MANUAL);
        assertThat(followUp.mergedSources()).containsExactly(TaskSource.MANUAL, TaskSource.FOREGROUND);
    }

    @Test
    void needsAttentionBlocksFurtherRunsUntilTheUserChecksAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Coordinator c = coordinator("a", ctx -> calls.incrementAndGet() == 1
                ? RunOutcome.needsAttention("a push was sent but its result could not be confirmed")
                : RunOutcome.succeeded());
        assertThat(await(c.submit(KEY, TaskSource.MANUAL)).status()).isEqualTo(RunStatus.NEEDS_ATTENTION);
        SubmitResult blocked = c.submit(KEY, TaskSource.SCHEDULE);
        assertThat(blocked).isInstanceOfSatisfying(SubmitResult.NeedsAttention.class,
                n -> assertThat(n.reason()).contains("could not be confirmed"));
        assertThat(calls.get()).isEqualTo(1);
        RunResult checked = await(c.submit(new TriggerRequest(KEY, TaskSource.MANUAL, false, true)));
        assertThat(checked.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.Started.class);
    }

    @Test
    void cancelFencesTheRunAtOnceAndRecordsCancelled() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        Coordinator c = coordinator("a", ctx -> {
            running.countDown();
            cancelled.await();
            ctx.enterStage(Stage.PUSHING); // refused: the lease is cancelled
            return RunOutcome.succeeded();
        });
        SubmitResult s = c.submit(KEY, TaskSource.MANUAL);
        running.await();
        HeldLease lease = ((SubmitResult.Started) s).handle().lease();
        assertThat(c.cancel(KEY, "account switched")).isTrue();
        assertThat(lease.lostSignal().get(1, TimeUnit.SECONDS)).isEqualTo(LeaseLoss.CANCELLED);
        assertThatThrownBy(lease::checkedFence).isInstanceOf(LeaseLostException.class);
        cancelled.countDown();
        RunResult result = await(s);
        assertThat(result.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(result.message()).contains("account switched");
        RunRecord r = store.runs().lastRun(KEY).orElseThrow();
        assertThat(r.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling");
        assertThat(r.status()).contains(RunStatus.CANCELLED);
    }

    @Test
    void runThatLostItsLeaseCannotRecordItsEndAndTheNewHolderRecoversIt() throws Exception {
        CountDownLatch takenOver = new CountDownLatch(1);
        Coordinator a = coordinator("a", ctx -> {
            takenOver.await();
            ctx.enterStage(Stage.PUSHING);
            return RunOutcome.succeeded();
        });
        SubmitResult first = a.submit(KEY, TaskSource.SCHEDULE);
        String oldRun = ((SubmitResult.Started) first).handle().runId();
        Coordinator b = coordinator("b", ctx -> RunOutcome.succeeded());
        assertThat(b.submit(KEY, TaskSource.MANUAL)).isInstanceOf(SubmitResult.Joined.class);
        time.elapse(TTL);          // a never renewed (no heartbeat in this test)
        RunResult second = await(b.submit(KEY, TaskSource.MANUAL));
        assertThat(second.status()).isEqualTo(RunStatus.SUCCEEDED);
        takenOver.countDown();
        RunResult stale = await(first);
        assertThat(stale.status()).isEqualTo(RunStatus.FAILED);
        assertThat(stale.recorded()).isFalse();
        RunRecord old = store.runs().run(oldRun).orElseThrow();
        assertThat(old.status()).contains(RunStatus.FAILED);
        assertThat(old.error().orElseThrow()).contains("interrupted");
        assertThat(old.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling");
    }

    @Test
    void recoveryResumesFromAPushCheckpointAndSkipsADoneOne() throws Exception {
        for (String stage : List.of("pushing", "done", "pulling")) {
            TaskKey key = TaskKey.of("u-" + stage, "backup");
            crashedRunWithCheckpoint(key, stage, stage.equals("pushing") ? "idem-1" : null);
            List<Optional<RecoveryDecision>> seen = new CopyOnWriteArrayList<>();
            Coordinator c = coordinator("c" + Integer.toHexString(stage.length()), ctx -> {
                seen.add(ctx.recovery());
                return RunOutcome.succeeded();
            });
            time.elapse(TTL);
            assertThat(c.submit(key, TaskSource.RECOVERY)).isInstanceOf(SubmitResult.Joined.class); // observe
            time.elapse(TTL);
            SubmitResult r = c.submit(key, TaskSource.RECOVERY);
            if (stage.equals("done")) {
                assertThat(r).isInstanceOf(SubmitResult.Skipped.class);
                assertThat(seen).isEmpty();
            } else {
                await(r);
                assertThat(seen).singleElement().satisfies(d ->
                        assertThat(d.orElseThrow().action()).isEqualTo(RecoveryDecision.Action.RESUME));
            }
        }
    }

    @Test
    void corruptCheckpointFailsClosedToNeedsAttention() throws Exception {
        crashedRunWithCheckpoint(KEY, "pushing", "idem-1");
        store.database().query("corrupt", conn -> conn.createStatement()
                .executeUpdate("UPDATE checkpoint SET stage = 'half-pushed'"));
        AtomicInteger calls = new AtomicInteger();
        Coordinator c = coordinator("f", ctx -> {
            calls.incrementAndGet();
            return RunOutcome.succeeded();
        });
        c.submit(KEY, TaskSource.SCHEDULE);
        time.elapse(TTL);
        SubmitResult r = c.submit(KEY, TaskSource.SCHEDULE);
        assertThat(r).isInstanceOfSatisfying(SubmitResult.NeedsAttention.class,
                n -> assertThat(n.reason()).contains("unknown stage 'half-pushed'"));
        assertThat(calls.get()).isZero();
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.NeedsAttention.class);
    }

    @Test
    void failedRunSchedulesARetryTriggerWithBackoffAndHonoursRetryAfter() throws Exception {
        java.util.concurrent.ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            AtomicInteger calls = new AtomicInteger();
            TaskRegistry registry = new TaskRegistry(store.leases(),
                    new OwnerId("test", ProcessHandle.current().pid(), 1, "e"), TTL, time, OwnerLiveness.neverProvable());
            CountDownLatch retried = new CountDownLatch(1);
            Coordinator c = new Coordinator(registry, store.runs(), ctx -> {
                if (calls.incrementAndGet() == 1) {
                    return RunOutcome.failed("the sync server is busy", 50);
                }
                retried.countDown();
                return RunOutcome.succeeded();
            }, workers, new LeaseKeeper(registry), timer,
                    new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(20), 3));
            long start = System.nanoTime();
            assertThat(await(c.submit(KEY, TaskSource.MANUAL)).status()).isEqualTo(RunStatus.FAILED);
            assertThat(retried.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.runs().lastRun(KEY).orElseThrow().status().orElseThrow() != RunStatus.SUCCEEDED) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(store.runs().history(KEY, 5)).extracting(RunRecord::firstSource)
                    .containsExactly(TaskSource.RETRY, TaskSource.MANUAL);
        } finally {
            timer.shutdownNow();
        }
    }

    /** Regression (CI flake): a join that landed between the holder's grant and its run row showed "(starting)". */
    @Test
    void aTriggerBetweenAnotherProcesssGrantAndItsRunRecordJoinsThatRunAndIsRecordedOnIt() throws Exception {
        TaskRegistry other = new TaskRegistry(store.leases(), new OwnerId("test", 4243, 1, "0ef"), TTL, time,
                OwnerLiveness.neverProvable());
        HeldLease held = other.tryAcquire(KEY).orElseThrow();
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded());
        var joined = workers.submit(() -> c.submit(KEY, TaskSource.FOREGROUND));
        Thread.sleep(150);   // the trigger is waiting for the holder's run record
        assertThat(joined.isDone()).isFalse();
        store.runs().insertRun(held.fence(), "other-run", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        assertThat(joined.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(SubmitResult.Joined.class,
                j -> assertThat(j.running().runId()).isEqualTo("other-run"));
        assertThat(store.runs().run("other-run").orElseThrow().mergedSources()).containsExactly(TaskSource.FOREGROUND);
    }

    @Test
    void aTriggerWhileAnotherProcessReleasesItsFinishedRunStartsANewRunInsteadOfJoiningTheOldOne() throws Exception {
        TaskRegistry other = new TaskRegistry(store.leases(), new OwnerId("test", 4243, 1, "0ef"), TTL, time,
                OwnerLiveness.neverProvable());
        HeldLease held = other.tryAcquire(KEY).orElseThrow();
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded());
        var submitted = workers.submit(() -> c.submit(KEY, TaskSource.MANUAL));
        Thread.sleep(150);
        other.release(held);
        RunResult r = await(submitted.get(10, TimeUnit.SECONDS));
        assertThat(r.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(store.runs().lastRun(KEY).orElseThrow().firstSource()).isEqualTo(TaskSource.MANUAL);
    }

    /** Simulates a process that took the lease, wrote a checkpoint and died. */
    private void crashedRunWithCheckpoint(TaskKey key, String stage, String idem) {
        TaskRegistry dead = new TaskRegistry(store.leases(), new OwnerId("test", 4242, 1, "dead"), TTL, time,
                OwnerLiveness.neverProvable());
        HeldLease lease = dead.tryAcquire(key).orElseThrow();
        store.runs().insertRun(lease.fence(), "crashed-" + key.userId(), TaskSource.SCHEDULE, Stage.PULLING,
                time.now(), Optional.empty());
        store.runs().saveCheckpoint(lease.fence(), new Checkpoint(key, "crashed-" + key.userId(), lease.fence().epoch(),
                Stage.tryParse(stage), stage, Optional.of("cur-3"), Optional.ofNullable(idem == null ? null : "b-1"),
                Optional.ofNullable(idem), idem == null ? List.of() : List.of("c-1", "c-2"), Optional.empty(), time.now()));
    }
}
