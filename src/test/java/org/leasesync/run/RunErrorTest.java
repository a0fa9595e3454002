package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.leasesync.lease.FatalErrorHandler;
import org.leasesync.lease.Fence;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;

/**
 * A run that ends with an {@link Error} — or any thread of the coordinator that
 * meets one — never leaves its key held, renewed, active or joined: the run ends as failed with what
 * happened, the lease is free, and the next trigger starts a run.
 */
class RunErrorTest extends CoordinatorFixture {

    final List<Throwable> fatal = new CopyOnWriteArrayList<>();

    Coordinator coordinator(String nonce, TaskRunner runner, Executor executor) {
        TaskRegistry registry = registry(nonce);
        Coordinator c = new Coordinator(
                registry, store.runs(), runner, executor, new LeaseKeeper(registry), null, null, fatal::add);
        c.addListener(events::add);
        return c;
    }

    /** Errors as the JVM itself throws them, not only constructed ones. */
    static Throwable realError(String kind) {
        try {
            switch (kind) {
                case "stack-overflow" -> recurse(1);
                case "assertion" -> throw new AssertionError("checked invariant broke: holders = 2");
                case "out-of-memory" -> {
                    long[] tooBig = new long[Integer.MAX_VALUE]; // "Requested array size exceeds VM limit"
                    return new IllegalStateException("allocated " + tooBig.length);
                }
                case "linkage" -> throw new NoClassDefFoundError("org/leasesync/Missing");
                default -> throw new IllegalArgumentException(kind);
            }
        } catch (Error e) {
            return e;
        }
        throw new IllegalStateException("no error for " + kind);
    }

    private static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"stack-overflow", "assertion", "out-of-memory", "linkage"})
    void aRunEndingWithAnErrorIsRecordedFailedReleasesItsLeaseAndTheNextTriggerStarts(String kind) throws Exception {
        Throwable error = realError(kind);
        AtomicInteger calls = new AtomicInteger();
        Coordinator c = coordinator(
                "a",
                ctx -> {
                    if (calls.incrementAndGet() == 1) {
                        ctx.enterStage(Stage.PUSHING);
                        if (error instanceof StackOverflowError) {
                            recurse(1); // the real thing, on the worker thread
                        }
                        throw (Error) error;
                    }
                    return RunOutcome.succeeded();
                },
                workers);
        SubmitResult first = c.submit(KEY, TaskSource.SCHEDULE);
        RunResult result =
                ((SubmitResult.Started) first).handle().completion().get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(RunStatus.FAILED);
        assertThat(result.message().orElseThrow())
                .contains(error.getClass().getSimpleName())
                .startsWith(error instanceof OutOfMemoryError ? "out of memory (" : "internal error (");
        assertThat(result.recorded()).isTrue();
        RunRecord r = store.history().run(result.runId()).orElseThrow();
        assertThat(r.status()).contains(RunStatus.FAILED);
        assertThat(r.error()).isEqualTo(result.message());
        assertThat(store.leases().read(KEY).orElseThrow().isHeld())
                .as("lease row free")
                .isFalse();
        assertThat(c.isRunningLocally(KEY)).isFalse();
        assertThat(((SubmitResult.Started) first).handle().lease().isValid()).isFalse();
        assertThat(events).extracting(RunEvent::kind).contains(RunEvent.Kind.FINISHED);
        assertThat(fatal)
                .as("only a fatal error is reported to the process")
                .containsExactlyElementsOf(FatalErrorHandler.isFatal(error) ? List.of(error) : List.of());

        SubmitResult next = c.submit(KEY, TaskSource.MANUAL);
        assertThat(next).as("the next trigger starts a run").isInstanceOf(SubmitResult.Started.class);
        assertThat(await(next).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(((SubmitResult.Started) next).handle().epoch()).isEqualTo(2);
    }

    @Test
    void anotherOwnerCanTakeTheKeyAtOnceAfterARunEndedWithAnError() throws Exception {
        Coordinator a = coordinator(
                "a",
                ctx -> {
                    throw new AssertionError("boom");
                },
                workers);
        assertThat(await(a.submit(KEY, TaskSource.SCHEDULE)).status()).isEqualTo(RunStatus.FAILED);
        Coordinator b = coordinator("b", ctx -> RunOutcome.succeeded(), workers);
        SubmitResult taken = b.submit(KEY, TaskSource.MANUAL); // no TTL has passed
        assertThat(taken).isInstanceOf(SubmitResult.Started.class);
        assertThat(await(taken).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void aListenerThatThrowsAnErrorNeitherKeepsTheRunFromEndingNorTheKeyFromBeingFreed() throws Exception {
        Coordinator c = coordinator(
                "a",
                ctx -> {
                    ctx.progress("half way");
                    return RunOutcome.succeeded();
                },
                workers);
        List<RunEvent.Kind> seenByTheNextListener = new CopyOnWriteArrayList<>();
        c.addListener(e -> {
            throw new AssertionError("listener bug on " + e.kind());
        });
        c.addListener(e -> seenByTheNextListener.add(e.kind()));
        RunResult result = await(c.submit(KEY, TaskSource.SCHEDULE));
        assertThat(result.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(seenByTheNextListener)
                .contains(RunEvent.Kind.STARTED, RunEvent.Kind.PROGRESS, RunEvent.Kind.FINISHED);
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(c.submit(KEY, TaskSource.MANUAL)).isInstanceOf(SubmitResult.Started.class);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rejected", "no-native-thread"})
    void aRunTheExecutorCannotTakeEndsAsFailedAndFreesTheKey(String how) throws Exception {
        AtomicInteger refusals = new AtomicInteger(1);
        Supplier<Throwable> refusal = () -> how.equals("rejected")
                ? new RejectedExecutionException("the worker pool is shut down")
                : new OutOfMemoryError(
                        "unable to create native thread: possibly out of memory or process/resource limits reached");
        Executor onceRefusing = task -> {
            if (refusals.getAndDecrement() > 0) {
                Throwable t = refusal.get();
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }
            workers.execute(task);
        };
        Coordinator c = coordinator("a", ctx -> RunOutcome.succeeded(), onceRefusing);
        SubmitResult first = c.submit(KEY, TaskSource.SCHEDULE);
        RunResult result =
                ((SubmitResult.Started) first).handle().completion().get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(RunStatus.FAILED);
        assertThat(result.message().orElseThrow())
                .startsWith("could not start: ")
                .contains(how.equals("rejected") ? "the worker pool is shut down" : "unable to create native thread");
        assertThat(store.history().run(result.runId()).orElseThrow().status()).contains(RunStatus.FAILED);
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        assertThat(c.isRunningLocally(KEY)).isFalse();
        assertThat(fatal).hasSize(how.equals("rejected") ? 0 : 1);
        SubmitResult next = c.submit(KEY, TaskSource.MANUAL);
        assertThat(next).isInstanceOf(SubmitResult.Started.class);
        assertThat(await(next).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void anErrorBeforeTheRunIsLaunchedReleasesTheLeaseSoThisProcessCanTakeTheKeyAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        RunStore failingOnce = new ForwardingRunStore(store.runs()) {
            @Override
            public void insertRun(
                    Fence fence,
                    String runId,
                    TaskSource source,
                    String triggerId,
                    Stage stage,
                    java.time.Instant now,
                    java.util.Optional<String> recovery) {
                // the coordinator records a run with the id of the trigger that started it
                if (calls.getAndIncrement() == 0) {
                    throw new StackOverflowError();
                }
                super.insertRun(fence, runId, source, triggerId, stage, now, recovery);
            }
        };
        TaskRegistry registry = registry("a");
        Coordinator c = new Coordinator(
                registry, failingOnce, ctx -> RunOutcome.succeeded(), workers, new LeaseKeeper(registry), null, null);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.submit(KEY, TaskSource.SCHEDULE))
                .isInstanceOf(StackOverflowError.class);
        assertThat(store.leases().read(KEY).orElseThrow().isHeld()).isFalse();
        SubmitResult next = c.submit(KEY, TaskSource.MANUAL);
        assertThat(next).as("not joined to a lease this process forgot").isInstanceOf(SubmitResult.Started.class);
        assertThat(await(next).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    /** A heartbeat task that threw once was never scheduled again: every lease of the process ran out. */
    @Test
    void theHeartbeatGoesOnAfterARenewalThrowsAnError() throws Exception {
        AtomicInteger renewCalls = new AtomicInteger();
        LeaseStore flaky = new LeaseStore() {
            @Override
            public java.util.Optional<LeaseRecord> tryGrant(
                    LeaseKey key,
                    OwnerId owner,
                    java.time.Duration ttl,
                    java.time.Instant now,
                    java.util.Optional<LeaseRecord> takeOver) {
                return store.leases().tryGrant(key, owner, ttl, now, takeOver);
            }

            @Override
            public boolean renew(Fence fence, java.time.Duration ttl, java.time.Instant now) {
                if (renewCalls.incrementAndGet() == 1) {
                    throw new AssertionError("renewal bug");
                }
                return store.leases().renew(fence, ttl, now);
            }

            @Override
            public boolean release(Fence fence, java.time.Instant now) {
                return store.leases().release(fence, now);
            }

            @Override
            public boolean raiseEpoch(Fence fence, long newEpoch, java.time.Instant now) {
                return store.leases().raiseEpoch(fence, newEpoch, now);
            }

            @Override
            public java.util.Optional<LeaseRecord> read(LeaseKey key) {
                return store.leases().read(key);
            }

            @Override
            public List<LeaseRecord> readAll() {
                return store.leases().readAll();
            }
        };
        // A TTL of seconds: a renewal pass that a loaded machine holds back longer than the TTL loses the
        // lease by rule, and the heartbeat of a lost lease rightly stops, which is not what this test asks.
        TaskRegistry registry = new TaskRegistry(
                flaky,
                new OwnerId("test", ProcessHandle.current().pid(), 1, "b"),
                java.time.Duration.ofSeconds(3),
                TimeSource.system(),
                OwnerLiveness.neverProvable());
        java.util.concurrent.ScheduledExecutorService timer =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (LeaseKeeper keeper = new LeaseKeeper(registry, fatal::add)) {
            HeldLease lease = registry.tryAcquire(KEY).orElseThrow();
            keeper.track(lease);
            keeper.start(timer);
            long heartbeatAtGrant = store.leases().read(KEY).orElseThrow().heartbeat();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (store.leases().read(KEY).orElseThrow().heartbeat() < heartbeatAtGrant + 3) {
                assertThat(System.nanoTime()).as("renewals after the error").isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(renewCalls.get()).isGreaterThanOrEqualTo(4);
            assertThat(lease.isValid()).isTrue();
            assertThat(fatal).isEmpty();
        } finally {
            timer.shutdownNow();
        }
    }
}
