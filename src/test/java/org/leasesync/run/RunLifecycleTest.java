package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;

/** A run from its worker thread to a free key: stages, outcome, cancel, a lost lease. */
class RunLifecycleTest extends CoordinatorFixture {

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
        RunRecord r = store.history().lastRun(KEY).orElseThrow();
        assertThat(r.status()).contains(RunStatus.SUCCEEDED);
        assertThat(r.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling", "pushing", "done");
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(events).extracting(RunEvent::kind).contains(RunEvent.Kind.STARTED, RunEvent.Kind.FINISHED);
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
        RunRecord r = store.history().lastRun(KEY).orElseThrow();
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
        time.elapse(TTL); // a never renewed (no heartbeat in this test)
        RunResult second = await(b.submit(KEY, TaskSource.MANUAL));
        assertThat(second.status()).isEqualTo(RunStatus.SUCCEEDED);
        takenOver.countDown();
        RunResult stale = await(first);
        assertThat(stale.status()).isEqualTo(RunStatus.FAILED);
        assertThat(stale.recorded()).isFalse();
        RunRecord old = store.history().run(oldRun).orElseThrow();
        assertThat(old.status()).contains(RunStatus.FAILED);
        assertThat(old.error().orElseThrow()).contains("interrupted");
        assertThat(old.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling");
    }
}
