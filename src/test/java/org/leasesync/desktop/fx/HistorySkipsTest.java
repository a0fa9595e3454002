package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.store.JdbcRunStore;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.RecentSyncGate;
import org.leasesync.testing.ManualTime;

/** The history tab lists a skipped timer trigger just above the run that made it unnecessary. */
class HistorySkipsTest {

    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final ManualTime time = new ManualTime();

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    private Coordinator coordinator(OwnerId owner) {
        TaskRegistry r =
                new TaskRegistry(store.leases(), owner, Duration.ofSeconds(60), time, OwnerLiveness.neverProvable());
        return new Coordinator(
                r,
                new JdbcRunStore(store.database(), time),
                ctx -> RunOutcome.succeeded(),
                workers,
                new LeaseKeeper(r),
                null,
                null);
    }

    private void sync(Coordinator c, TaskKey key, TaskSource source) throws Exception {
        SubmitResult r = c.submit(key, source);
        ((SubmitResult.Started) r).handle().completion().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aSkippedTimerTriggerIsARowAboveTheRunThatMadeItUnnecessary() throws Exception {
        TaskKey key = TaskKey.of("alice", "course_sync");
        OwnerId windowA = new OwnerId("t", 4242, 1, "a");
        OwnerId windowB = new OwnerId("t", 4343, 1, "b");
        Coordinator a = coordinator(windowA);
        sync(a, key, TaskSource.SCHEDULE);
        time.elapse(Duration.ofSeconds(12));
        Coordinator b = coordinator(windowB);
        b.setStartCheck(new RecentSyncGate(new JdbcRecentSyncs(store.database()), time, windowB)
                .backgroundTriggers(Duration.ofMinutes(5), Duration.ofMinutes(1)));
        assertThat(b.submit(key, TaskSource.SCHEDULE))
                .isInstanceOfSatisfying(
                        SubmitResult.Skipped.class,
                        sk -> assertThat(sk.reason())
                                .isEqualTo("skipped: synced 12 s ago by another process (pid 4242)"));
        time.elapse(Duration.ofMinutes(5));
        sync(a, key, TaskSource.MANUAL);

        MainViewModel main = new MainViewModel(
                a,
                Runnable::run,
                Runnable::run,
                ZoneId.of("UTC"),
                List.of("alice"),
                sink -> new StatusTracker(store.runs(), a, Runnable::run, sink));
        main.start();
        HistoryViewModel history = new HistoryViewModel(
                store.runs(),
                new JdbcRecentSyncs(store.database()),
                main,
                Runnable::run,
                Runnable::run,
                ZoneId.of("UTC"));
        history.load();

        List<HistoryViewModel.Row> rows = history.rows();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0).sources()).isEqualTo("manual");
        assertThat(rows.get(1).result()).isEqualTo("skipped");
        assertThat(rows.get(1).sources()).isEqualTo("schedule");
        assertThat(rows.get(1).owner()).isEqualTo(windowB.asString());
        assertThat(rows.get(1).error()).isEqualTo("skipped: synced 12 s ago by another process (pid 4242)");
        assertThat(rows.get(1).started()).isEqualTo("10:00:12");
        assertThat(rows.get(2).sources()).isEqualTo("schedule");
        assertThat(rows.get(2).result()).startsWith("succeeded");
    }
}
