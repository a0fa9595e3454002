package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.testing.ManualTime;

/**
 * Real threads against a real database (H2 here, PostgreSQL in {@link PostgresLeaseRaceTest}):
 * invariant 1 inside one process, for task keys and job keys, for grants of free keys and for
 * takeovers of a stale holder.
 */
class LeaseRaceTest {

    static final int THREADS = 16;
    static final int ROUNDS = 1_000;
    static final int MIXED_ROUNDS = 500;
    static final int TAKEOVER_ROUNDS = 200;

    final LocalStore store = open();

    /** The store the races run on. */
    LocalStore open() {
        return LocalStore.openInMemory();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void sixteenThreadsCompetingForOneKeyHaveExactlyOneWinnerPerRound() throws Exception {
        TaskKey key = TaskKey.of("alice", "course_sync");
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicIntegerArray winners = new AtomicIntegerArray(ROUNDS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        CyclicBarrier decided = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            TaskRegistry registry = new TaskRegistry(
                    store.leases(),
                    new OwnerId("race", ProcessHandle.current().pid(), 1, Integer.toHexString(t + 1)),
                    Duration.ofMinutes(5),
                    TimeSource.system(),
                    OwnerLiveness.neverProvable());
            futures.add(pool.submit(() -> {
                for (int round = 0; round < ROUNDS; round++) {
                    start.await();
                    Optional<HeldLease> lease = registry.tryAcquire(key);
                    if (lease.isPresent()) {
                        int now = holders.incrementAndGet();
                        maxHolders.accumulateAndGet(now, Math::max);
                        winners.incrementAndGet(round);
                    }
                    decided.await();
                    if (lease.isPresent()) {
                        holders.decrementAndGet();
                        assertThat(registry.release(lease.get())).isTrue();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertThat(maxHolders.get()).isEqualTo(1);
        for (int round = 0; round < ROUNDS; round++) {
            assertThat(winners.get(round)).as("winners in round %d", round).isEqualTo(1);
        }
        assertThat(store.leases().read(key).orElseThrow().epoch()).isEqualTo(ROUNDS);
    }

    @Test
    void differentKeysNeverBlockEachOther() throws Exception {
        TaskRegistry holder = new TaskRegistry(
                store.leases(),
                OwnerId.forCurrentProcess(),
                Duration.ofMinutes(5),
                TimeSource.system(),
                OwnerLiveness.neverProvable());
        holder.tryAcquire(TaskKey.of("alice", "course_sync")).orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Boolean>> got = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TaskKey key = new TaskKey("user-" + i, org.leasesync.lease.Scope.values()[i % 3]);
            TaskRegistry r = new TaskRegistry(
                    store.leases(),
                    OwnerId.forCurrentProcess(),
                    Duration.ofMinutes(5),
                    TimeSource.system(),
                    OwnerLiveness.neverProvable());
            got.add(pool.submit(() -> r.tryAcquire(key).isPresent()));
        }
        for (Future<Boolean> f : got) {
            assertThat(f.get(1, TimeUnit.MINUTES)).isTrue();
        }
        pool.shutdown();
    }

    @Test
    void aJobKeyAndATaskKeyRacedSideBySideHaveOneHolderEachAndEpochsRisingByOnePerRound() throws Exception {
        List<LeaseKey> keys = List.of(JobKey.of("expire-idempotency-keys"), TaskKey.of("alice", "backup"));
        AtomicInteger[] holders = {new AtomicInteger(), new AtomicInteger()};
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicIntegerArray winners = new AtomicIntegerArray(2 * MIXED_ROUNDS);
        AtomicIntegerArray epochs = new AtomicIntegerArray(2 * MIXED_ROUNDS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        CyclicBarrier decided = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            TaskRegistry registry = new TaskRegistry(
                    store.leases(),
                    new OwnerId("mixed", ProcessHandle.current().pid(), 1, Integer.toHexString(t + 1)),
                    Duration.ofMinutes(5),
                    TimeSource.system(),
                    OwnerLiveness.neverProvable());
            futures.add(pool.submit(() -> {
                for (int round = 0; round < MIXED_ROUNDS; round++) {
                    start.await();
                    List<HeldLease> won = new ArrayList<>();
                    for (int i = 0; i < 2; i++) {
                        int k = (thread + round + i) % 2; // half the threads go for the job key first
                        Optional<HeldLease> lease = registry.tryAcquire(keys.get(k));
                        if (lease.isPresent()) {
                            maxHolders.accumulateAndGet(holders[k].incrementAndGet(), Math::max);
                            winners.incrementAndGet(2 * round + k);
                            epochs.set(2 * round + k, (int) lease.get().fence().epoch());
                            won.add(lease.get());
                        }
                    }
                    decided.await();
                    for (HeldLease lease : won) {
                        holders[keys.indexOf(lease.key())].decrementAndGet();
                        assertThat(registry.release(lease)).isTrue();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertThat(maxHolders.get()).isEqualTo(1);
        for (int round = 0; round < MIXED_ROUNDS; round++) {
            for (int k = 0; k < 2; k++) {
                assertThat(winners.get(2 * round + k))
                        .as("winners of %s in round %d", keys.get(k), round)
                        .isEqualTo(1);
                assertThat(epochs.get(2 * round + k))
                        .as("epoch of %s in round %d", keys.get(k), round)
                        .isEqualTo(round + 1);
            }
        }
        for (LeaseKey key : keys) {
            assertThat(store.leases().read(key).orElseThrow().epoch()).isEqualTo(MIXED_ROUNDS);
        }
    }

    @Test
    void manyRegistriesTakingOverTheSameStaleHolderAtOnceHaveExactlyOneWinnerPerRound() throws Exception {
        // Each round: every contender observes the holder's row, one TTL passes (a shared manual clock)
        // without a renewal, then all take over at once with the conditional UPDATE on the observed row.
        // The winner becomes the next round's silent (dead) holder.
        JobKey key = JobKey.of("purge-tombstones");
        Duration ttl = Duration.ofSeconds(30);
        ManualTime time = new ManualTime();
        TaskRegistry first = new TaskRegistry(
                store.leases(),
                new OwnerId("takeover", ProcessHandle.current().pid(), 1, "ff"),
                ttl,
                time,
                OwnerLiveness.neverProvable());
        first.tryAcquire(key).orElseThrow();
        AtomicIntegerArray winners = new AtomicIntegerArray(TAKEOVER_ROUNDS);
        AtomicIntegerArray epochs = new AtomicIntegerArray(TAKEOVER_ROUNDS);
        CyclicBarrier observed = new CyclicBarrier(THREADS + 1);
        CyclicBarrier elapsed = new CyclicBarrier(THREADS + 1);
        CyclicBarrier raced = new CyclicBarrier(THREADS + 1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                TaskRegistry registry = takeoverContender(key, ttl, time, thread, 0);
                for (int round = 0; round < TAKEOVER_ROUNDS; round++) {
                    assertThat(registry.tryAcquire(key))
                            .as("the holder is live until a TTL passes")
                            .isEmpty();
                    observed.await();
                    elapsed.await();
                    Optional<HeldLease> lease = registry.tryAcquire(key);
                    if (lease.isPresent()) {
                        winners.incrementAndGet(round);
                        epochs.set(round, (int) lease.get().fence().epoch());
                        // the winner dies holding the key and comes back as a new process (a new owner)
                        registry = takeoverContender(key, ttl, time, thread, round + 1);
                    }
                    raced.await();
                }
                return null;
            }));
        }
        for (int round = 0; round < TAKEOVER_ROUNDS; round++) {
            observed.await(1, TimeUnit.MINUTES);
            time.elapse(ttl);
            elapsed.await(1, TimeUnit.MINUTES);
            raced.await(1, TimeUnit.MINUTES);
        }
        for (Future<?> f : futures) {
            f.get(1, TimeUnit.MINUTES);
        }
        pool.shutdown();
        for (int round = 0; round < TAKEOVER_ROUNDS; round++) {
            assertThat(winners.get(round)).as("takeovers in round %d", round).isEqualTo(1);
            assertThat(epochs.get(round)).as("epoch taken in round %d", round).isEqualTo(round + 2);
        }
        assertThat(store.leases().read(key).orElseThrow().epoch()).isEqualTo(TAKEOVER_ROUNDS + 1);
    }

    private TaskRegistry takeoverContender(LeaseKey key, Duration ttl, ManualTime time, int thread, int life) {
        return new TaskRegistry(
                store.leases(),
                new OwnerId(
                        "takeover", ProcessHandle.current().pid(), 1, Integer.toHexString((thread + 1) << 16 | life)),
                ttl,
                time,
                OwnerLiveness.neverProvable());
    }
}
