package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.CallCancellation;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.RemoteException;
import org.leasesync.testing.ClientStack;

/**
 * A run's scope ends its HTTP call when the run is cancelled or loses its lease (SIGTERM, Cancel,
 * account switch), and refuses a call the run makes after that — found when a SIGTERM 50 ms after a
 * run started waited the whole call timeout: the shutdown had cancelled the calls in flight before
 * the run sent its first one.
 */
class CallCancellationTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final String PULL_OK = "{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":false}";

    MockWebServer web;
    HttpSyncRemote remote;

    @BeforeEach
    void setUp() throws Exception {
        web = new MockWebServer();
        web.start();
        // a read timeout and call timeout far beyond the server's delay: only a cancel ends the call early
        remote = new HttpSyncRemote(
                web.url("/").toString(),
                ClientStack.HTTP,
                new HttpSettings(Duration.ofSeconds(5), Duration.ofSeconds(120), Duration.ofSeconds(120)),
                Map.of("alice", "tok-a")::get,
                "client-1");
    }

    @AfterEach
    void tearDown() {
        web.close();
    }

    static MockResponse ok(long delaySeconds) {
        return new MockResponse.Builder()
                .code(200)
                .addHeader("Content-Type", "application/json")
                .headersDelay(delaySeconds, TimeUnit.SECONDS)
                .body(PULL_OK)
                .build();
    }

    @Test
    void aCallMadeAfterTheRunWasCancelledIsNotSent() {
        web.enqueue(ok(0));
        CompletableFuture<String> stop = new CompletableFuture<>();
        stop.complete("cancelled");
        try (CallCancellation.Scope scope = CallCancellation.open(stop)) {
            assertThat(CallCancellation.fired()).isTrue();
            assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 50, 1, "run-1"))
                    .isInstanceOf(RemoteException.class)
                    .hasMessageContaining("was cancelled before it was sent")
                    .satisfies(e -> assertThat(((RemoteException) e).kind()).isEqualTo(RemoteException.Kind.NOT_SENT));
        }
        assertThat(web.getRequestCount()).as("requests the server received").isZero();
    }

    @RepeatedTest(3)
    void cancellingTheRunEndsTheCallInFlight() throws Exception {
        web.enqueue(ok(60)); // answers after a minute, well within the client's timeouts
        CompletableFuture<String> stop = new CompletableFuture<>();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread run = new Thread(
                () -> {
                    try (CallCancellation.Scope scope = CallCancellation.open(stop)) {
                        PullPage page = remote.pull(KEY, Optional.empty(), 50, 1, "run-1");
                        outcome.complete(new AssertionError("the call was not cancelled; got " + page));
                    } catch (Throwable e) {
                        outcome.complete(e);
                    }
                },
                "run-thread");
        run.start();
        assertThat(web.takeRequest(30, TimeUnit.SECONDS))
                .as("the request reached the server")
                .isNotNull();
        stop.complete("cancelled"); // from another thread, as Cancel / SIGTERM do
        Throwable e = outcome.get(30, TimeUnit.SECONDS); // without the cancel: only after the server's minute
        assertThat(e).isInstanceOf(RemoteException.class).hasMessageContaining("was cancelled");
        run.join(10_000);
    }

    @Test
    void withoutAScopeOrBeforeTheSignalCallsRunNormally() throws Exception {
        web.enqueue(ok(0));
        assertThat(CallCancellation.fired()).isFalse();
        assertThat(remote.pull(KEY, Optional.empty(), 50, 1, "run-1").nextCursor())
                .isEqualTo("1");
        web.enqueue(ok(0));
        CompletableFuture<String> stop = new CompletableFuture<>();
        try (CallCancellation.Scope scope = CallCancellation.open(stop)) {
            assertThat(remote.pull(KEY, Optional.empty(), 50, 1, "run-2").nextCursor())
                    .isEqualTo("1");
        }
        stop.complete("released after the run"); // a scope left behind cancels nothing later
        web.enqueue(ok(0));
        assertThat(remote.pull(KEY, Optional.empty(), 50, 1, "run-3").nextCursor())
                .isEqualTo("1");
        assertThat(web.getRequestCount()).isEqualTo(3);
    }
}
