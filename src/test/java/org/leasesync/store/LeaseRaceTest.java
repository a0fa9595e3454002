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
import org.leasesync.registry.HeldLease;
import org.leasesync.registry.OwnerId;
import org.leasesync.registry.OwnerLiveness;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskRegistry;
import org.leasesync.registry.TimeSource;

/** Real threads against real H2: invariant 1 inside one process. */
class LeaseRaceTest {

    static final int THREADS = 16;
    static final int ROUNDS = 1_000;

    final LocalStore store = LocalStore.openInMemory();

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
            TaskRegistry registry = new TaskRegistry(store.leases(),
                    new OwnerId("race", ProcessHandle.current().pid(), 1, Integer.toHexString(t + 1)),
                    Duration.ofMinutes(5), TimeSource.system(), OwnerLiveness.neverProvable());
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
        TaskRegistry holder = new TaskRegistry(store.leases(), OwnerId.forCurrentProcess(), Duration.ofMinutes(5),
                TimeSource.system(), OwnerLiveness.neverProvable());
        holder.tryAcquire(TaskKey.of("alice", "course_sync")).orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Boolean>> got = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TaskKey key = new TaskKey("user-" + i, org.leasesync.registry.Scope.values()[i % 3]);
            TaskRegistry r = new TaskRegistry(store.leases(), OwnerId.forCurrentProcess(), Duration.ofMinutes(5),
                    TimeSource.system(), OwnerLiveness.neverProvable());
            got.add(pool.submit(() -> r.tryAcquire(key).isPresent()));
        }
        for (Future<Boolean> f : got) {
            assertThat(f.get(1, TimeUnit.MINUTES)).isTrue();
        }
        pool.shutdown();
    }
}
