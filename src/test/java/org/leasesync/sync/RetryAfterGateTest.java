package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.ManualTime;

/**
 * A server that answers {@code 429} or {@code 503} with {@code Retry-After} (delta-seconds or an
 * HTTP-date) is not contacted about the key again before that time by any trigger — timer, window
 * focus, Sync now, recovery — and is once it has passed; a new coordinator on the same
 * database (a restarted window, the next CLI run) honours the same wait. The clock is moved by hand.
 */
@Timeout(60)
class RetryAfterGateTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final String PULL_EMPTY = "{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":false}";
    static final HttpSettings HTTP =
            new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5));

    final ManualTime time = new ManualTime(Instant.parse("2026-12-01T10:00:00Z"));
    MockWebServer web;
    LocalStore store;

    @BeforeEach
    void setUp() throws IOException {
        web = new MockWebServer();
        web.start();
        store = LocalStore.openInMemory();
    }

    @AfterEach
    void tearDown() throws IOException {
        store.close();
        web.close();
    }

    ClientStack client() {
        return new ClientStack(
                store, web.url("/").toString(), Map.of("alice", "tok-a"), time, SyncSettings.DEFAULT, HTTP);
    }

    static MockResponse refusal(int code, String retryAfter) {
        return new MockResponse.Builder()
                .code(code)
                .addHeader("Content-Type", "application/json")
                .addHeader("Retry-After", retryAfter)
                .body("{\"code\":\"" + (code == 429 ? "rate_limited" : "unavailable") + "\",\"message\":\"later\"}")
                .build();
    }

    static MockResponse ok() {
        return new MockResponse.Builder()
                .code(200)
                .addHeader("Content-Type", "application/json")
                .body(PULL_EMPTY)
                .build();
    }

    /** Fails one sync with {@code refusal}, then checks every trigger waits until {@code until}, then syncs. */
    void everyTriggerWaitsUntil(MockResponse refusal, Instant until) throws Exception {
        web.enqueue(refusal);
        web.enqueue(ok());
        try (ClientStack client = client()) {
            RunResult failed = client.sync(KEY, TaskSource.SCHEDULE);
            assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
            assertThat(web.getRequestCount()).isEqualTo(1);

            time.elapse(Duration.between(time.now(), until).minusMillis(1));
            // (the automatic retry is timed to the Retry-After by RetryScheduler: RetrySchedulerTest)
            for (TaskSource source :
                    new TaskSource[] {TaskSource.SCHEDULE, TaskSource.FOREGROUND, TaskSource.MANUAL, TaskSource.RECOVERY
                    }) {
                SubmitResult r = client.coordinator.submit(TriggerRequest.of(KEY, source));
                assertThat(r).as(source.wireName()).isInstanceOfSatisfying(SubmitResult.Waiting.class, w -> {
                    assertThat(w.until()).isEqualTo(until);
                    assertThat(w.reason()).contains("HTTP " + refusal.getCode());
                });
            }
            assertThat(client.coordinator.serverWaitUntil(KEY)).contains(until);
            assertThat(web.getRequestCount())
                    .as("nothing was sent before the time")
                    .isEqualTo(1);
        }
        try (ClientStack restarted = client()) {
            assertThat(restarted.coordinator.submit(TriggerRequest.of(KEY, TaskSource.MANUAL)))
                    .as("a new process on the same database")
                    .isInstanceOf(SubmitResult.Waiting.class);

            time.elapse(Duration.ofMillis(1));
            assertThat(restarted.sync(KEY, TaskSource.SCHEDULE).status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(web.getRequestCount()).isEqualTo(2);
            assertThat(web.takeRequest(1, TimeUnit.SECONDS).getMethod()).isEqualTo("GET");
            assertThat(restarted.coordinator.serverWaitUntil(KEY)).isEmpty();
        }
    }

    @Test
    void a429WithDeltaSecondsHoldsEveryTriggerUntilThen() throws Exception {
        everyTriggerWaitsUntil(refusal(429, "60"), time.now().plusSeconds(60));
    }

    @Test
    void a429WithAnHttpDateHoldsEveryTriggerUntilThatDate() throws Exception {
        Instant until = time.now().plusSeconds(90);
        everyTriggerWaitsUntil(
                refusal(429, DateTimeFormatter.RFC_1123_DATE_TIME.format(until.atZone(ZoneOffset.UTC))), until);
    }

    @Test
    void a503WithDeltaSecondsHoldsEveryTriggerUntilThen() throws Exception {
        everyTriggerWaitsUntil(refusal(503, "30"), time.now().plusSeconds(30));
    }

    @Test
    void a503WithAnHttpDateHoldsEveryTriggerUntilThatDate() throws Exception {
        Instant until = time.now().plusSeconds(45);
        everyTriggerWaitsUntil(
                refusal(503, DateTimeFormatter.RFC_1123_DATE_TIME.format(until.atZone(ZoneOffset.UTC))), until);
    }

    @Test
    void aClockSetBackDoesNotLengthenTheWait() throws Exception {
        web.enqueue(refusal(429, "60"));
        web.enqueue(ok());
        try (ClientStack client = client()) {
            assertThat(client.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.FAILED);
            time.jumpWall(Duration.ofHours(-1));
            Instant setBack = time.now();
            assertThat(client.coordinator.serverWaitUntil(KEY)).contains(setBack.plusSeconds(60));

            time.elapse(Duration.ofSeconds(60));
            assertThat(client.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        }
    }

    @Test
    void aFailureWithoutRetryAfterImposesNoWait() throws Exception {
        web.enqueue(new MockResponse.Builder()
                .code(500)
                .addHeader("Content-Type", "application/json")
                .body("{\"code\":\"internal\",\"message\":\"boom\"}")
                .build());
        web.enqueue(ok());
        try (ClientStack client = client()) {
            assertThat(client.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.FAILED);
            assertThat(client.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        }
    }
}
