package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;

/** Retries after failed runs: backoff, Retry-After, limits, cancellation; on the monotonic clock. */
class RetrySchedulerTest extends CoordinatorFixture {

    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final List<TaskKey> fired = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    RetryScheduler scheduler(RetryPolicy policy, CountDownLatch firedLatch) {
        return new RetryScheduler(
                timer,
                policy,
                time,
                key -> {
                    fired.add(key);
                    firedLatch.countDown();
                },
                () -> false);
    }

    @Test
    void failedRunSchedulesARetryTriggerWithBackoffAndHonoursRetryAfter() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        TaskRegistry registry = registry("e");
        CountDownLatch retried = new CountDownLatch(1);
        Coordinator c = new Coordinator(
                registry,
                store.runs(),
                ctx -> {
                    if (calls.incrementAndGet() == 1) {
                        return RunOutcome.failed("the sync server is busy", 50);
                    }
                    retried.countDown();
                    return RunOutcome.succeeded();
                },
                workers,
                new LeaseKeeper(registry),
                timer,
                new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(20), 3));
        long start = System.nanoTime();
        assertThat(await(c.submit(KEY, TaskSource.MANUAL)).status()).isEqualTo(RunStatus.FAILED);
        assertThat(retried.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.history().lastRun(KEY).orElseThrow().status().orElseThrow() != RunStatus.SUCCEEDED) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.sleep(5);
        }
        assertThat(store.history().history(KEY, 5))
                .extracting(RunRecord::firstSource)
                .containsExactly(TaskSource.RETRY, TaskSource.MANUAL);
    }

    @Test
    void aRunEndedSignedOutCancelsThePendingRetriesOfItsAccountOnly() throws Exception {
        RetryScheduler r =
                scheduler(new RetryPolicy(Duration.ofMinutes(5), Duration.ofMinutes(5), 3), new CountDownLatch(1));
        TaskKey courses = TaskKey.of("alice", "course_sync");
        TaskKey backup = TaskKey.of("alice", "backup");
        TaskKey bobs = TaskKey.of("bob", "course_sync");
        r.onRunEnded(courses, RunOutcome.failed("the connection to the sync server broke"));
        r.onRunEnded(bobs, RunOutcome.failed("the connection to the sync server broke"));
        assertThat(r.nextRetryAt(courses)).isPresent();

        r.onRunEnded(backup, RunOutcome.signedOut("401 unauthenticated: the session is not valid any more"));

        assertThat(r.nextRetryAt(courses))
                .as("alice's retry would be refused too")
                .isEmpty();
        assertThat(r.nextRetryAt(backup)).isEmpty();
        assertThat(r.nextRetryAt(bobs)).as("bob's session is his own").isPresent();
        assertThat(fired).isEmpty();
    }

    @Test
    void retriesStopAfterTheMaximumAttemptsInARowAndASuccessResetsTheCount() throws Exception {
        CountDownLatch threeFired = new CountDownLatch(3);
        RetryScheduler r = scheduler(new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(2), 2), threeFired);
        r.onRunEnded(KEY, RunOutcome.failed("x"));
        r.onRunEnded(KEY, RunOutcome.failed("x"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fired.size() < 2) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.sleep(1);
        }
        r.onRunEnded(KEY, RunOutcome.failed("x")); // third failure in a row: no retry
        assertThat(r.nextRetryAt(KEY)).isEmpty();
        r.onRunEnded(KEY, RunOutcome.succeeded());
        r.onRunEnded(KEY, RunOutcome.failed("x")); // counts from one again: a retry fires
        // (not asserted through nextRetryAt: with a 1-2 ms delay the retry may already have fired)
        assertThat(threeFired.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fired).containsExactly(KEY, KEY, KEY);
    }

    @Test
    void anotherRunOfTheKeyCancelsThePendingRetry() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        RetryScheduler r = scheduler(new RetryPolicy(Duration.ofMillis(200), Duration.ofMillis(200), 3), never);
        r.onRunEnded(KEY, RunOutcome.failed("x"));
        assertThat(r.nextRetryAt(KEY)).isPresent();
        r.cancel(KEY);
        assertThat(r.nextRetryAt(KEY)).isEmpty();
        assertThat(never.await(600, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(fired).isEmpty();
    }

    @Test
    void aWallClockFarAheadOrBehindNeitherDelaysNorHastensARetry() throws Exception {
        for (Duration step : List.of(Duration.ofDays(3), Duration.ofDays(-6))) {
            fired.clear();
            CountDownLatch one = new CountDownLatch(1);
            RetryScheduler r = scheduler(new RetryPolicy(Duration.ofMillis(300), Duration.ofMillis(300), 3), one);
            java.time.Instant wallAtFailure = time.now();
            r.onRunEnded(KEY, RunOutcome.failed("x"));
            // shown due time: the wall clock at the failure plus the delay (jitter: half to all of it)
            assertThat(r.nextRetryAt(KEY).orElseThrow())
                    .isBetween(wallAtFailure.plusMillis(150), wallAtFailure.plusMillis(300));
            time.jumpWall(step); // the wall clock steps days ahead, then behind
            assertThat(one.await(10, TimeUnit.SECONDS))
                    .as("the retry fires after %s", step)
                    .isTrue();
            assertThat(fired).containsExactly(KEY);
        }
    }

    @Test
    void aSignedOutRunIsNeverRetriedAndEndsAFailureStreak() throws Exception {
        CountDownLatch none = new CountDownLatch(1);
        RetryScheduler r = scheduler(new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(2), 6), none);
        r.onRunEnded(KEY, RunOutcome.signedOut("signed out: ...; sign in again"));
        assertThat(r.nextRetryAt(KEY)).isEmpty();
        assertThat(none.await(200, TimeUnit.MILLISECONDS))
                .as("the same token would be refused again")
                .isFalse();
        assertThat(fired).isEmpty();
    }
}
