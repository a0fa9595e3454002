package org.leasesync.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.testing.ForwardingLeaseStore;
import org.leasesync.testing.InMemoryLeaseStore;
import org.leasesync.testing.ManualTime;

/**
 * The lease policy of {@link TaskRegistry} and {@link LeaseKeeper} on the in-memory lease store
 * (which passes the lease contract the SQL store passes), with time moved by hand: the decisions,
 * each in milliseconds, and one test of real threads contending for one key.
 */
class TaskRegistryTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();
    private ManualTime time;
    private TaskRegistry a;
    private TaskRegistry b;

    @BeforeEach
    void setUp() {
        time = new ManualTime();
        a = registry("a", OwnerLiveness.neverProvable());
        b = registry("b", OwnerLiveness.neverProvable());
    }

    private static OwnerId owner(String nonce) {
        return new OwnerId("test-host", 4242, 1, nonce);
    }

    private TaskRegistry registry(String nonce, OwnerLiveness liveness) {
        return new TaskRegistry(store, owner(nonce), TTL, time, liveness);
    }

    private LeaseRecord row() {
        return store.read(KEY).orElseThrow();
    }

    @Test
    void aGrantCarriesEpochOneTheOwnerAndNineTenthsOfTheTtlOfLocalValidity() {
        Instant at = time.now();
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThat(lease.fence()).isEqualTo(new Fence(KEY, owner("a"), 1));
        assertThat(lease.ttl()).isEqualTo(TTL);
        assertThat(Duration.ofNanos(lease.remainingNanos())).isEqualTo(Duration.ofSeconds(27));
        assertThat(lease.checkedFence()).isEqualTo(lease.fence());
        LeaseRecord row = row();
        assertThat(row.owner()).contains(owner("a"));
        assertThat(row.epoch()).isEqualTo(1);
        assertThat(row.heartbeat()).isEqualTo(1);
        assertThat(row.ttl()).isEqualTo(TTL);
        assertThat(row.renewedAt()).isEqualTo(at);
        assertThat(row.expiresAt()).isEqualTo(at.plus(TTL));
    }

    @Test
    void contentionIsAnEmptyAnswerForAnotherOwnerAndForTheHolderItself() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(a.tryAcquire(KEY))
                .as("the holder's registry again: another thread of it")
                .isEmpty();
        time.elapse(TaskRegistry.REREAD_AFTER);
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(row().epoch()).isEqualTo(1);
        assertThat(row().heartbeat()).as("losing attempts write nothing").isEqualTo(1);
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void aRenewalBeforeTheTtlMovesTheHeartbeatAndRestoresTheLocalValidity() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        time.elapse(Duration.ofSeconds(20));
        assertThat(Duration.ofNanos(lease.remainingNanos())).isEqualTo(Duration.ofSeconds(7));
        assertThat(a.renew(lease)).isTrue();
        assertThat(Duration.ofNanos(lease.remainingNanos())).isEqualTo(Duration.ofSeconds(27));
        assertThat(row().heartbeat()).isEqualTo(2);
        assertThat(row().epoch()).isEqualTo(1);
        assertThat(row().renewedAt()).isEqualTo(time.now());
        assertThat(lease.lostSignal()).isNotDone();
    }

    @Test
    void aLeaseNotRenewedWithinItsLocalValidityIsExpiredAndNotRenewedLate() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        time.elapse(Duration.ofSeconds(27));
        assertThat(a.renew(lease)).isFalse();
        assertThat(lease.lostSignal().join()).isEqualTo(LeaseLoss.EXPIRED);
        assertThat(row().heartbeat()).as("a late renewal is not even sent").isEqualTo(1);
        assertThatThrownBy(lease::checkedFence).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void anExpiredLeaseKeepsItsKeyHeldUntilItIsReleased() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        time.elapse(Duration.ofSeconds(27));
        assertThat(a.renew(lease)).isFalse();
        assertThat(a.tryAcquire(KEY)).as("still held by this registry").isEmpty();
        assertThat(row().owner()).as("still named in the store").contains(owner("a"));
        assertThat(a.release(lease)).isTrue();
        assertThat(lease.lostSignal().join()).as("the first reason stays").isEqualTo(LeaseLoss.EXPIRED);
        assertThat(row().isHeld()).isFalse();
        assertThat(a.tryAcquire(KEY).orElseThrow().fence()).isEqualTo(new Fence(KEY, owner("a"), 2));
    }

    @Test
    void anUnrenewedKeyIsTakenOverOneTtlAfterItWasFirstSeenWithTheNextEpoch() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        time.elapse(Duration.ofSeconds(10));
        assertThat(b.tryAcquire(KEY)).as("first sighting starts b's count").isEmpty();
        time.elapse(TTL.minusNanos(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofNanos(1));
        HeldLease taken = b.tryAcquire(KEY).orElseThrow();
        assertThat(taken.fence()).isEqualTo(new Fence(KEY, owner("b"), 2));
        assertThat(row().owner()).contains(owner("b"));
        assertThat(row().heartbeat()).isEqualTo(2);
        assertThat(old.isValid()).as("expired locally long before the takeover").isFalse();
    }

    @Test
    void aStaleHoldersFenceIsRefusedByTheStoreAfterATakeoverAndChangesNothing() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        TaskRegistry c = registry("c", o -> o.equals(owner("a")));
        HeldLease taken = c.tryAcquire(KEY).orElseThrow();
        LeaseRecord after = row();
        assertThat(store.renew(old.fence(), TTL, time.now())).isFalse();
        assertThat(store.release(old.fence(), time.now())).isFalse();
        assertThat(store.raiseEpoch(old.fence(), 9, time.now())).isFalse();
        assertThat(row()).isEqualTo(after);
        assertThat(a.renew(old))
                .as("still valid locally: the store says it is lost")
                .isFalse();
        assertThat(old.lostSignal().join()).isEqualTo(LeaseLoss.TAKEN_OVER);
        assertThat(a.release(old)).isFalse();
        assertThat(row().owner()).contains(owner("c"));
        assertThat(taken.fence().epoch()).isEqualTo(2);
        assertThat(c.renew(taken)).isTrue();
    }

    @Test
    void aReleaseFreesTheKeyKeepsTheEpochAndTheNextGrantGetsAHigherOne() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(a.release(first)).isTrue();
        assertThat(first.lostSignal().join()).isEqualTo(LeaseLoss.RELEASED);
        assertThat(row().isHeld()).isFalse();
        assertThat(row().epoch()).isEqualTo(1);
        assertThat(row().heartbeat()).isEqualTo(2);
        assertThat(a.release(first)).as("twice: no longer ours").isFalse();
        HeldLease second = b.tryAcquire(KEY).orElseThrow();
        assertThat(second.fence().epoch()).isEqualTo(2);
        assertThat(b.release(second)).isTrue();
        assertThat(a.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(3);
    }

    @Test
    void aLostLeaseOnceReleasedLetsItsRegistryTakeTheKeyAgain() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        time.elapse(TTL);
        assertThat(a.renew(old)).isFalse();
        assertThat(a.release(old))
                .as("the row still names a: the release frees it")
                .isTrue();
        assertThat(a.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void aProvablyDeadHolderIsTakenOverAtOnceAndALiveOneIsOnlyAskedAbout() {
        List<OwnerId> asked = new ArrayList<>();
        AtomicBoolean dead = new AtomicBoolean();
        TaskRegistry c = registry("c", o -> {
            asked.add(o);
            return dead.get();
        });
        a.tryAcquire(KEY).orElseThrow();
        assertThat(c.tryAcquire(KEY)).isEmpty();
        assertThat(asked).containsExactly(owner("a"));
        dead.set(true);
        time.elapse(TaskRegistry.REREAD_AFTER);
        HeldLease taken = c.tryAcquire(KEY).orElseThrow();
        assertThat(taken.fence()).isEqualTo(new Fence(KEY, owner("c"), 2));
        assertThat(asked).containsExactly(owner("a"), owner("a"));
    }

    @Test
    void aGrantWhoseAnswerWasLostIsTakenBackAsAnOrphanWithTheNextEpoch() {
        AtomicBoolean loseAnswer = new AtomicBoolean(true);
        LeaseStore lossy = new ForwardingLeaseStore(store) {
            @Override
            public Optional<LeaseRecord> grantIfNew(LeaseKey key, OwnerId o, Duration ttl, Instant now) {
                Optional<LeaseRecord> granted = super.grantIfNew(key, o, ttl, now);
                if (loseAnswer.getAndSet(false)) {
                    throw new StoreException("the connection broke after the commit");
                }
                return granted;
            }
        };
        TaskRegistry d = new TaskRegistry(lossy, owner("d"), TTL, time, OwnerLiveness.neverProvable());
        assertThatThrownBy(() -> d.tryAcquire(KEY)).isInstanceOf(StoreException.class);
        assertThat(row().owner()).contains(owner("d"));
        assertThat(b.tryAcquire(KEY))
                .as("to another owner the orphan is a live holder")
                .isEmpty();
        HeldLease back = d.tryAcquire(KEY).orElseThrow();
        assertThat(back.fence()).isEqualTo(new Fence(KEY, owner("d"), 2));
    }

    @Test
    void raisingTheEpochGivesANewFenceAndTheNextGrantGoesAboveIt() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThatThrownBy(() -> a.raiseEpoch(lease, 1)).isInstanceOf(IllegalArgumentException.class);
        HeldLease raised = a.raiseEpoch(lease, 40).orElseThrow();
        assertThat(raised.fence()).isEqualTo(new Fence(KEY, owner("a"), 40));
        assertThat(lease.lostSignal().join()).isEqualTo(LeaseLoss.RELEASED);
        assertThat(a.raiseEpoch(lease, 50))
                .as("the old fence is no longer current")
                .isEmpty();
        assertThat(a.renew(raised)).isTrue();
        assertThat(a.tryAcquire(KEY)).isEmpty();
        assertThat(a.release(raised)).isTrue();
        assertThat(b.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(41);
    }

    @Test
    void theKeepersHeartbeatIsScheduledOnlyWhileItTracksALease() throws Exception {
        // a TTL of 120 ms: the heartbeat runs every 20 ms while scheduled
        TaskRegistry quick =
                new TaskRegistry(store, owner("d"), Duration.ofMillis(120), time, OwnerLiveness.neverProvable());
        java.util.concurrent.ScheduledThreadPoolExecutor timer =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1);
        timer.setRemoveOnCancelPolicy(true);
        try (LeaseKeeper keeper = new LeaseKeeper(quick)) {
            keeper.start(timer);
            assertThat(timer.getQueue()).as("nothing to keep: no wakeups").isEmpty();
            for (int round = 0; round < 20; round++) {
                HeldLease lease = quick.tryAcquire(KEY).orElseThrow();
                keeper.track(lease);
                assertThat(keeper.beating())
                        .as("round %d: tracking a lease", round)
                        .isTrue();
                assertThat(awaitQueued(timer, 1))
                        .as("round %d: one beat queued", round)
                        .isEqualTo(1);
                keeper.untrack(lease);
                quick.release(lease);
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (keeper.beating() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(keeper.beating())
                        .as("round %d: stopped at the next beat without leases", round)
                        .isFalse();
                assertThat(awaitQueued(timer, 0))
                        .as("round %d: nothing queued", round)
                        .isZero();
            }
            // a lease tracked while the beat may be stopping for want of one is never left unkept
            java.util.Random random = new java.util.Random(7);
            for (int round = 0; round < 40; round++) {
                HeldLease lease = quick.tryAcquire(KEY).orElseThrow();
                keeper.track(lease);
                keeper.untrack(lease);
                quick.release(lease);
                Thread.sleep(random.nextInt(25));
                HeldLease next = quick.tryAcquire(KEY).orElseThrow();
                keeper.track(next);
                Thread.sleep(50); // over two beats
                assertThat(keeper.beating())
                        .as("race round %d: the beat goes on", round)
                        .isTrue();
                assertThat(awaitQueued(timer, 1))
                        .as("race round %d: one beat queued", round)
                        .isEqualTo(1);
                keeper.untrack(next);
                quick.release(next);
            }
            keeper.track(quick.tryAcquire(KEY).orElseThrow());
            assertThat(awaitQueued(timer, 1)).isEqualTo(1);
            keeper.close();
            assertThat(timer.getQueue()).as("closed").isEmpty();
        } finally {
            timer.shutdownNow();
        }
    }

    /**
     * The timer's queue size once it is {@code want} with no beat running (a running beat is out of
     * the queue until it ends), or the last size seen after 5 s.
     */
    private static int awaitQueued(java.util.concurrent.ScheduledThreadPoolExecutor timer, int want)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            if (timer.getQueue().size() == want && timer.getActiveCount() == 0) {
                return want;
            }
            Thread.sleep(1);
        }
        return timer.getQueue().size();
    }

    @Test
    void theKeeperRenewsOnlyWhatIsDueAndDropsATakenOverLease() {
        LeaseKeeper keeper = new LeaseKeeper(a);
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        keeper.track(lease);
        time.elapse(TTL.dividedBy(3).minusNanos(1));
        assertThat(keeper.renewDue()).isZero();
        assertThat(row().heartbeat()).isEqualTo(1);
        time.elapse(Duration.ofNanos(1));
        assertThat(keeper.renewDue()).isZero();
        assertThat(row().heartbeat()).isEqualTo(2);
        registry("c", o -> o.equals(owner("a"))).tryAcquire(KEY).orElseThrow();
        time.elapse(TTL.dividedBy(3));
        assertThat(keeper.renewDue()).isEqualTo(1);
        assertThat(lease.lostSignal().join()).isEqualTo(LeaseLoss.TAKEN_OVER);
        time.elapse(TTL.dividedBy(3));
        assertThat(keeper.renewDue()).as("no longer tracked").isZero();
    }

    /**
     * Real threads on one key, two per registry (so both the registry's own guard and the store's
     * conditional writes are contended): whoever is granted the key checks, inside its critical
     * section, that it is the only holder and that its epoch is new. Time does not move, so no
     * lease is ever taken over: every change of holder goes through a release.
     */
    @Test
    void threadsContendingForOneKeyNeverHoldItTogetherAndNeverReuseAnEpoch() throws Exception {
        int registries = 4;
        int threads = 8;
        int rounds = 2_000;
        List<TaskRegistry> regs = new ArrayList<>();
        for (int i = 0; i < registries; i++) {
            regs.add(registry("f" + i, OwnerLiveness.neverProvable()));
        }
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger mostHolders = new AtomicInteger();
        Set<Long> epochs = ConcurrentHashMap.newKeySet();
        List<String> faults = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        List<Callable<Integer>> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            TaskRegistry mine = regs.get(t % registries);
            work.add(() -> {
                start.await();
                int granted = 0;
                for (int r = 0; r < rounds; r++) {
                    Optional<HeldLease> lease = mine.tryAcquire(KEY);
                    if (lease.isEmpty()) {
                        continue;
                    }
                    int now = holders.incrementAndGet();
                    mostHolders.accumulateAndGet(now, Math::max);
                    long epoch = lease.get().fence().epoch();
                    if (!epochs.add(epoch)) {
                        faults.add("epoch " + epoch + " granted twice");
                    }
                    Fence current = store.read(KEY).orElseThrow().fence();
                    if (!current.equals(lease.get().fence())) {
                        faults.add("held " + lease.get().fence() + " while the row says " + current);
                    }
                    granted++;
                    holders.decrementAndGet();
                    if (!mine.release(lease.get())) {
                        faults.add("release of epoch " + epoch + " refused");
                    }
                }
                return granted;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int grants = 0;
        try {
            List<Future<Integer>> done = work.stream().map(pool::submit).toList();
            start.countDown();
            for (Future<Integer> f : done) {
                grants += f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(faults).isEmpty();
        assertThat(mostHolders).hasValue(1);
        assertThat(grants).isPositive();
        assertThat(epochs)
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, grants).boxed().toList());
        assertThat(row().epoch()).isEqualTo(grants);
        assertThat(row().isHeld()).isFalse();
    }
}
