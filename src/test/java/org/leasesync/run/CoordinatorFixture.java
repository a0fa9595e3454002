package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/**
 * What the coordinator's tests share: a real in-memory H2 store, a manual clock, real worker
 * threads, and coordinators of owners told apart by a nonce. Each test class holds one fixture.
 */
abstract class CoordinatorFixture {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final Duration TTL = Duration.ofSeconds(60);

    final LocalStore store = LocalStore.openInMemory();
    final ManualTime time = new ManualTime();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final List<RunEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDownFixture() {
        workers.shutdownNow();
        store.close();
    }

    TaskRegistry registry(String nonce) {
        return new TaskRegistry(
                store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, nonce),
                TTL,
                time,
                OwnerLiveness.neverProvable());
    }

    Coordinator coordinator(String nonce, TaskRunner runner) {
        TaskRegistry registry = registry(nonce);
        Coordinator c = new Coordinator(registry, store.runs(), runner, workers, new LeaseKeeper(registry), null, null);
        c.addListener(events::add);
        return c;
    }

    static RunResult await(SubmitResult r) throws Exception {
        assertThat(r).isInstanceOf(SubmitResult.Started.class);
        return ((SubmitResult.Started) r).handle().completion().get(30, TimeUnit.SECONDS);
    }

    /** Simulates a process that took the lease, wrote a checkpoint and died. */
    void crashedRunWithCheckpoint(TaskKey key, String stage, String idem) {
        TaskRegistry dead = new TaskRegistry(
                store.leases(), new OwnerId("test", 4242, 1, "dead"), TTL, time, OwnerLiveness.neverProvable());
        HeldLease lease = dead.tryAcquire(key).orElseThrow();
        store.runs()
                .insertRun(
                        lease.fence(),
                        "crashed-" + key.userId(),
                        TaskSource.SCHEDULE,
                        Stage.PULLING,
                        time.now(),
                        Optional.empty());
        store.runs()
                .saveCheckpoint(
                        lease.fence(),
                        new Checkpoint(
                                key,
                                "crashed-" + key.userId(),
                                lease.fence().epoch(),
                                Stage.tryParse(stage),
                                stage,
                                Optional.of("cur-3"),
                                Optional.ofNullable(idem == null ? null : "b-1"),
                                Optional.ofNullable(idem),
                                idem == null ? List.of() : List.of("c-1", "c-2"),
                                Optional.empty(),
                                time.now()));
    }
}
