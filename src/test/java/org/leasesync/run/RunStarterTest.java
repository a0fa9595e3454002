package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;

/** The start of a run: recovering an unfinished one, recording the new one. */
class RunStarterTest extends CoordinatorFixture {

    /** Takes the key over from the crashed holder (seen unchanged for a TTL) and prepares a start. */
    private RunStarter.Prepared prepareAfterTakeover(TaskRegistry mine, TriggerRequest request) {
        time.elapse(TTL);
        assertThat(mine.tryAcquire(request.key())).isEmpty(); // first sight of the dead holder
        time.elapse(TTL);
        HeldLease lease = mine.tryAcquire(request.key()).orElseThrow();
        return new RunStarter(store.runs(), time).prepare(request, lease);
    }

    @Test
    void anInterruptedPushIsClosedAsFailedAndTheNewRunResumesIt() {
        crashedRunWithCheckpoint(KEY, "pushing", "idem-1");
        RunStarter.Prepared p = prepareAfterTakeover(registry("ab"), TriggerRequest.of(KEY, TaskSource.SCHEDULE));
        assertThat(p.answer()).isEmpty();
        assertThat(p.recovery().orElseThrow().action()).isEqualTo(RecoveryDecision.Action.RESUME);
        assertThat(p.checkpoint().orElseThrow().idempotencyKey()).contains("idem-1");
        RunRecord old = store.history().run("crashed-alice").orElseThrow();
        assertThat(old.status()).contains(RunStatus.FAILED);
        assertThat(old.error().orElseThrow()).isEqualTo("interrupted: its owner lost the lease; next run will resume");
    }

    @Test
    void anUnreadableCheckpointAnswersNeedsAttentionAndStartsNothing() throws Exception {
        crashedRunWithCheckpoint(KEY, "pushing", "idem-1");
        store.database()
                .query(
                        "corrupt",
                        conn -> conn.createStatement().executeUpdate("UPDATE checkpoint SET stage = 'half-pushed'"));
        RunStarter.Prepared p = prepareAfterTakeover(registry("ab"), TriggerRequest.of(KEY, TaskSource.SCHEDULE));
        assertThat(p.answer()).containsInstanceOf(SubmitResult.NeedsAttention.class);
        assertThat(store.history().run("crashed-alice").orElseThrow().status()).contains(RunStatus.NEEDS_ATTENTION);
    }

    @Test
    void recordInsertsTheRunWithItsMergedSourcesAndRecovery() {
        TaskRegistry mine = registry("ab");
        HeldLease lease = mine.tryAcquire(KEY).orElseThrow();
        RunStarter starter = new RunStarter(store.runs(), time);
        TriggerRequest request = new TriggerRequest(KEY, TaskSource.MANUAL, false, true);
        RunStarter.Prepared p = starter.prepare(request, lease);
        LocalRun run = starter.record(request, lease, List.of(TaskSource.FOREGROUND), p);
        RunRecord r = store.history().run(run.runId).orElseThrow();
        assertThat(r.status()).contains(RunStatus.RUNNING);
        assertThat(r.epoch()).isEqualTo(1);
        assertThat(r.mergedSources()).containsExactly(TaskSource.FOREGROUND);
        assertThat(r.recovery()).contains("resume: checking again from the saved checkpoint");
        assertThat(run.view.local()).isTrue();
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
                assertThat(seen)
                        .singleElement()
                        .satisfies(d -> assertThat(d.orElseThrow().action()).isEqualTo(RecoveryDecision.Action.RESUME));
            }
        }
    }

    @Test
    void corruptCheckpointFailsClosedToNeedsAttention() throws Exception {
        crashedRunWithCheckpoint(KEY, "pushing", "idem-1");
        store.database()
                .query(
                        "corrupt",
                        conn -> conn.createStatement().executeUpdate("UPDATE checkpoint SET stage = 'half-pushed'"));
        AtomicInteger calls = new AtomicInteger();
        Coordinator c = coordinator("f", ctx -> {
            calls.incrementAndGet();
            return RunOutcome.succeeded();
        });
        c.submit(KEY, TaskSource.SCHEDULE);
        time.elapse(TTL);
        SubmitResult r = c.submit(KEY, TaskSource.SCHEDULE);
        assertThat(r)
                .isInstanceOfSatisfying(
                        SubmitResult.NeedsAttention.class,
                        n -> assertThat(n.reason()).contains("unknown stage 'half-pushed'"));
        assertThat(calls.get()).isZero();
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.NeedsAttention.class);
        assertThat(store.leases().read(KEY).orElseThrow().isHeld())
                .as("the lease is released")
                .isFalse();
    }
}
