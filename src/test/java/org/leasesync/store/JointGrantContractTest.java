package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.StartCheck;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.testing.ManualTime;

/**
 * The joint grant ({@link TaskRegistry#tryAcquireJointly}): the lease grant and the run store's
 * writes in one local transaction — all of it commits or none of it; a rolled-back grant leaves
 * nothing granted in memory or in the database; holders of a key never exceed one, from many
 * threads of one registry and from two registries on one database; a started trigger is ONE commit
 * (counted at the JDBC driver by {@link CommitCounter}). Every backend (H2 memory, H2 file with the
 * app's URL, PostgreSQL) must pass it. Time is a {@link ManualTime}; no test sleeps.
 */
abstract class JointGrantContractTest {

    static final Duration TTL = Duration.ofSeconds(60);
    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    CommitCounter counter;
    LocalStore store;
    ManualTime time;
    TaskRegistry a;
    TaskRegistry b;

    /** Opens a fresh, migrated database of the backend, its driver's data source wrapped by {@code wrap}. */
    abstract Database open(UnaryOperator<DataSource> wrap) throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        store = LocalStore.of(open(ds -> counter = new CommitCounter(ds)));
        time = new ManualTime();
        a = registry("a");
        b = registry("b");
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    TaskRegistry registry(String nonce) {
        return new TaskRegistry(
                store.leases(),
                new OwnerId("test-host", ProcessHandle.current().pid(), 1, nonce),
                TTL,
                time,
                OwnerLiveness.neverProvable());
    }

    /** The joint work of the tests: records run {@code runId} under the new lease. */
    private TaskRegistry.Joint<String> startJointly(TaskRegistry r, String runId) {
        return r.tryAcquireJointly(KEY, store.runs(), "test start", (lease, tx) -> {
                    tx.insertRun(lease.fence(), runId, TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
                    return runId;
                })
                .orElseThrow();
    }

    @Test
    void theStoresOfOneDatabaseCanShareATransactionAndAWrappedRunStoreCannot() {
        assertThat(a.canGrantJointly(store.runs())).isTrue();
        JdbcRunStore other = new JdbcRunStore(Database.openInMemory());
        assertThat(a.canGrantJointly(other)).isFalse();
        assertThatThrownBy(() -> a.tryAcquireJointly(KEY, other, "x", (l, tx) -> 1))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(a.tryAcquire(KEY)).isPresent(); // the failed call left no mark behind
    }

    @Test
    void theGrantAndTheRunCommitTogetherAndNothingIsVisibleBefore() {
        AtomicInteger checked = new AtomicInteger();
        TaskRegistry.Joint<String> joint = a.tryAcquireJointly(KEY, store.runs(), "test start", (lease, tx) -> {
                    tx.insertRun(
                            lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
                    assertThat(tx.runningRun(KEY)).map(RunRecord::runId).contains("run-1"); // its own writes
                    assertThat(a.lease(KEY)).isEmpty(); // other connections: nothing yet
                    assertThat(store.history().run("run-1")).isEmpty();
                    assertThat(a.tryAcquire(KEY)).isEmpty(); // this registry: being granted
                    checked.incrementAndGet();
                    return "run-1";
                })
                .orElseThrow();
        assertThat(checked).hasValue(1);
        HeldLease lease = joint.lease();
        assertThat(joint.result()).isEqualTo("run-1");
        assertThat(lease.fence().epoch()).isEqualTo(1);
        assertThat(lease.isValid()).isTrue();
        assertThat(a.lease(KEY).orElseThrow().owner()).contains(a.owner());
        RunRecord run = store.history().run("run-1").orElseThrow();
        assertThat(run.epoch()).isEqualTo(1);
        assertThat(run.status()).contains(RunStatus.RUNNING);
        assertThat(a.tryAcquire(KEY)).isEmpty();
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(a.renew(lease)).isTrue(); // held in memory with its epoch
        assertThat(a.release(lease)).isTrue();
        assertThat(startJointly(b, "run-2").lease().fence().epoch()).isEqualTo(2); // free path: epoch + 1
    }

    @Test
    void aFailureInsideTheTransactionRollsTheGrantBackAndTheKeyIsGrantableAtOnce() {
        a.release(a.tryAcquire(KEY).orElseThrow()); // the row exists, free, epoch 1
        List<HeldLease> given = new ArrayList<>();
        assertThatThrownBy(() -> a.tryAcquireJointly(KEY, store.runs(), "test start", (lease, tx) -> {
                    given.add(lease);
                    tx.insertRun(
                            lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
                    throw new IllegalStateException("boom after the run row");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom after the run row");
        assertThat(given).hasSize(1);
        HeldLease rolledBack = given.get(0);
        assertThat(rolledBack.fence().epoch()).isEqualTo(2);
        assertThat(rolledBack.isValid()).isFalse();
        assertThat(rolledBack.lossReason()).isEqualTo(LeaseLoss.RELEASED);
        assertThat(a.lease(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(a.lease(KEY).orElseThrow().epoch()).isEqualTo(1);
        assertThat(store.history().run("run-1")).isEmpty();
        // Fencing: nothing can be written under the rolled-back grant.
        assertThatThrownBy(() -> store.runs()
                        .insertRun(
                                rolledBack.fence(),
                                "run-x",
                                TaskSource.MANUAL,
                                Stage.PULLING,
                                time.now(),
                                Optional.empty()))
                .isInstanceOf(LeaseLostException.class);

        HeldLease next = b.tryAcquire(KEY).orElseThrow(); // at once, by another owner, with no TTL of waiting
        assertThat(next.fence().epoch()).isEqualTo(2);
        assertThatThrownBy(() -> store.runs()
                        .insertRun(
                                rolledBack.fence(),
                                "run-y",
                                TaskSource.MANUAL,
                                Stage.PULLING,
                                time.now(),
                                Optional.empty()))
                .isInstanceOf(LeaseLostException.class); // same number, not its owner
        b.release(next);
        assertThat(startJointly(a, "run-2").lease().fence().epoch()).isEqualTo(3); // and by the same registry
    }

    @Test
    void aDatabaseFailureInsideTheTransactionRollsBackAFirstGrantToNoRowAtAll() {
        TaskKey other = TaskKey.of("bob", "backup");
        HeldLease bobs = a.tryAcquire(other).orElseThrow();
        store.runs().insertRun(bobs.fence(), "taken", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        assertThatThrownBy(() -> a.tryAcquireJointly(KEY, store.runs(), "test start", (lease, tx) -> {
                    tx.insertRun(
                            lease.fence(), "taken", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
                    return null;
                }))
                .isInstanceOf(StoreException.class); // duplicate run id: the database refused
        assertThat(a.lease(KEY)).isEmpty(); // the first grant's insert is gone too
        assertThat(b.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(1);
    }

    @Test
    void aGrantWhoseWriteWaitedOnALockStillGetsItsWholeTtl() {
        a.release(a.tryAcquire(KEY).orElseThrow()); // the row exists, free
        // the grant's write takes 50 s (a lock wait up to LOCK_TIMEOUT, seen under load), nothing else does
        counter.afterNextWrite(() -> time.elapse(Duration.ofSeconds(50)));
        TaskRegistry.Joint<Long> joint = a.tryAcquireJointly(
                        KEY, store.runs(), "x", (lease, tx) -> lease.remainingNanos())
                .orElseThrow();
        // local validity is the TTL less its 10 % margin for scheduling delays, counted from after the write
        assertThat(Duration.ofNanos(joint.result()))
                .as("the lease's life counts from after the write, so the run starts with its whole TTL")
                .isEqualTo(Duration.ofSeconds(54));
        time.elapse(Duration.ofSeconds(53));
        assertThat(joint.lease().isValid()).as("and keeps it until then").isTrue();
    }

    @Test
    void aHeldKeyIsNotGrantedAndTheWorkNeverRuns() {
        HeldLease held = b.tryAcquire(KEY).orElseThrow();
        AtomicInteger ran = new AtomicInteger();
        assertThat(a.tryAcquireJointly(KEY, store.runs(), "test start", (l, tx) -> ran.incrementAndGet()))
                .isEmpty();
        assertThat(ran).hasValue(0);
        assertThat(a.lease(KEY).orElseThrow().owner()).contains(b.owner());
        assertThat(a.lease(KEY).orElseThrow().epoch()).isEqualTo(held.fence().epoch());
        assertThat(b.renew(held)).isTrue();
    }

    @Test
    void aSilentHolderIsTakenOverInsideTheTransactionAndItsFenceRefused() {
        HeldLease old = b.tryAcquire(KEY).orElseThrow();
        assertThat(a.tryAcquireJointly(KEY, store.runs(), "x", (l, tx) -> 1)).isEmpty(); // first sighting
        time.elapse(TTL);
        TaskRegistry.Joint<String> joint = startJointly(a, "run-new");
        assertThat(joint.lease().fence().epoch()).isEqualTo(old.fence().epoch() + 1);
        assertThatThrownBy(() -> store.runs()
                        .insertRun(
                                old.fence(), "run-old", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty()))
                .isInstanceOf(LeaseLostException.class);
        assertThat(b.renew(old)).isFalse();
    }

    @Test
    void concurrentJointStartsFromManyThreadsAndTwoRegistriesNeverMakeTwoHolders() throws Exception {
        TaskRegistry[] registries = {a, b, registry("c")};
        for (int repeat = 0; repeat < 3; repeat++) {
            TaskKey key = TaskKey.of("race" + repeat, "course_sync"); // a fresh key: the first grants insert
            AtomicInteger holders = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            AtomicInteger granted = new AtomicInteger();
            Set<String> planned = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<Long> epochs = Collections.synchronizedList(new ArrayList<>());
            int threads = 8;
            int grants = 100; // per repeat, across all threads; a fifth of them roll back
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                TaskRegistry r = registries[t % registries.length];
                int thread = t; // names the runs
                done.add(pool.submit(() -> {
                    go.await();
                    // bounded by grants, not attempts: a loaded machine makes many more empty
                    // attempts per grant, and the futures' timeout catches a hang
                    for (int i = 0; granted.get() < grants; i++) {
                        String runId = key.userId() + "-" + thread + "-" + i;
                        Optional<TaskRegistry.Joint<String>> joint;
                        try {
                            joint = r.tryAcquireJointly(key, store.runs(), "race", (lease, tx) -> {
                                tx.insertRun(
                                        lease.fence(),
                                        runId,
                                        TaskSource.MANUAL,
                                        Stage.PULLING,
                                        time.now(),
                                        Optional.empty());
                                if (granted.incrementAndGet() % 5 == 0) { // every fifth start throws inside
                                    planned.add(runId);
                                    throw new IllegalStateException("planned");
                                }
                                return runId;
                            });
                        } catch (IllegalStateException e) {
                            failed.incrementAndGet();
                            continue;
                        }
                        if (joint.isEmpty()) {
                            continue;
                        }
                        if (holders.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        epochs.add(joint.get().lease().fence().epoch());
                        Thread.yield();
                        holders.decrementAndGet();
                        r.release(joint.get().lease());
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(overlaps).as("two holders of %s at once", key).hasValue(0);
            assertThat(epochs).as("grants").isNotEmpty();
            assertThat(granted).as("grants made inside a transaction").hasValueGreaterThanOrEqualTo(grants);
            assertThat(failed).as("rolled-back starts").hasValueGreaterThanOrEqualTo(grants / 5);
            Set<Long> distinct = new HashSet<>(epochs);
            assertThat(distinct).as("every committed grant has its own epoch").hasSize(epochs.size());
            List<RunRecord> runs = store.history().history(key, 100_000);
            assertThat(runs)
                    .as("one run row per committed grant, none of a rolled-back one")
                    .hasSize(epochs.size());
            assertThat(runs.stream().map(RunRecord::epoch).toList()).containsExactlyInAnyOrderElementsOf(epochs);
            assertThat(failed).as("rolled-back starts").hasValue(planned.size());
            assertThat(runs.stream().map(RunRecord::runId).filter(planned::contains))
                    .as("no planned failure committed")
                    .isEmpty();
            assertThat(a.lease(key).orElseThrow().isHeld()).isFalse();
            for (TaskRegistry r : registries) { // nothing left marked or held in memory
                HeldLease l = r.tryAcquire(key).orElseThrow();
                r.release(l);
            }
        }
    }

    @Test
    void aStartedTriggerIsOneCommitAndAJoinedTriggerIsOne() {
        Deque<Runnable> runs = new ArrayDeque<>();
        Coordinator c = new Coordinator(
                a, store.runs(), ctx -> RunOutcome.succeeded(), runs::add, new LeaseKeeper(a), null, null);
        int before = counter.commits();
        assertThat(c.submit(KEY, TaskSource.MANUAL)).isInstanceOf(SubmitResult.Started.class); // a new key: insert
        assertThat(counter.commits() - before)
                .as("commits of a started trigger (first grant)")
                .isEqualTo(1);

        before = counter.commits();
        assertThat(c.submit(KEY, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.Joined.class);
        assertThat(counter.commits() - before).as("commits of a joined trigger").isEqualTo(1);

        runs.remove().run(); // the run ends: end recorded, lease released
        assertThat(c.isRunningLocally(KEY)).isFalse();
        before = counter.commits();
        assertThat(c.submit(KEY, TaskSource.MANUAL)).isInstanceOf(SubmitResult.Started.class); // a free key: update
        assertThat(counter.commits() - before)
                .as("commits of a started trigger (free key)")
                .isEqualTo(1);
        runs.remove().run();

        // The separate grant, as for a start check that asks: two commits (the reference).
        c.setStartCheck(new StartCheck() {
            @Override
            public Optional<String> skipReason(TriggerRequest request) {
                return Optional.empty();
            }
        });
        before = counter.commits();
        assertThat(c.submit(KEY, TaskSource.MANUAL)).isInstanceOf(SubmitResult.Started.class);
        assertThat(counter.commits() - before)
                .as("commits of a started trigger, grant apart")
                .isEqualTo(2);
        runs.remove().run();
        assertThat(store.history().history(KEY, 10))
                .hasSize(3)
                .allSatisfy(r -> assertThat(r.status()).contains(RunStatus.SUCCEEDED));
    }
}
