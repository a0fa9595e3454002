package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/** The main view model without a stage: direct executors, a real coordinator on in-memory H2. */
class MainViewModelTest {

    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final CountDownLatch release = new CountDownLatch(1);
    final Executor direct = Runnable::run;

    @AfterEach
    void tearDown() {
        release.countDown();
        workers.shutdownNow();
        store.close();
    }

    MainViewModel vm(Coordinator c) {
        return new MainViewModel(
                c,
                direct,
                direct,
                ZoneId.of("UTC"),
                List.of("alice", "bob"),
                sink -> new StatusTracker(store.runs(), c, direct, sink));
    }

    Coordinator coordinator() {
        ManualTime time = new ManualTime();
        TaskRegistry r = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        return new Coordinator(
                r,
                store.runs(),
                ctx -> {
                    release.await();
                    return RunOutcome.succeeded();
                },
                workers,
                new LeaseKeeper(r),
                null,
                null);
    }

    @Test
    void syncNowShowsRunningAndASecondClickShowsJoined() {
        MainViewModel vm = vm(coordinator());
        vm.start();
        assertThat(vm.card(Scope.COURSE_SYNC).headlineProperty().get()).isEqualTo("Not synced yet");
        vm.syncNow(Scope.COURSE_SYNC);
        assertThat(vm.card(Scope.COURSE_SYNC).headlineProperty().get())
                .startsWith("Syncing · pulling · started ")
                .endsWith("(manual)");
        vm.syncNow(Scope.COURSE_SYNC);
        assertThat(vm.card(Scope.COURSE_SYNC).detailProperty().get()).contains("your request joined it");
        vm.syncAgainAfter(Scope.COURSE_SYNC);
        assertThat(vm.card(Scope.COURSE_SYNC).detailProperty().get()).contains("another sync will follow");
    }

    @Test
    void afterAnAccountSwitchSnapshotsOfTheOldAccountAreDropped() throws Exception {
        Coordinator c = coordinator();
        MainViewModel vm = vm(c);
        vm.start();
        vm.syncNow(Scope.BACKUP);
        assertThat(vm.card(Scope.BACKUP).headlineProperty().get()).startsWith("Syncing");
        vm.switchAccount("bob");
        assertThat(vm.currentUser()).isEqualTo("bob");
        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.localRuns().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(c.localRuns()).isEmpty();
        assertThat(vm.card(Scope.BACKUP).status().key().userId()).isEqualTo("bob");
        assertThat(vm.card(Scope.BACKUP).headlineProperty().get()).isEqualTo("Not synced yet");
    }
}
