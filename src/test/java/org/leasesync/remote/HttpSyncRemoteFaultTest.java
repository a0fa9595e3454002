package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.RemoteException;
import org.leasesync.sync.SyncSettings;
import org.leasesync.testing.ClientStack;

/** The HTTP client against scripted faults (MockWebServer on loopback). */
class HttpSyncRemoteFaultTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final String PULL_OK =
            "{\"changes\":[{\"id\":\"r1\",\"version\":2,\"deleted\":false,\"payload\":{\"title\":\"T\"},"
                    + "\"serverTime\":\"2026-11-30T10:00:00Z\",\"surprise\":true}],\"nextCursor\":\"9\",\"hasMore\":false,\"extra\":[1]}";

    MockWebServer web;
    HttpSyncRemote remote;

    @BeforeEach
    void setUp() throws Exception {
        web = new MockWebServer();
        web.start();
        remote = new HttpSyncRemote(
                web.url("/").toString(),
                ClientStack.HTTP,
                new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5)),
                Map.of("alice", "tok-a")::get,
                "client-1");
    }

    @AfterEach
    void tearDown() {
        web.close();
    }

    static MockResponse json(int code, String body) {
        return new MockResponse.Builder()
                .code(code)
                .addHeader("Content-Type", "application/json")
                .body(body)
                .build();
    }

    PushBatch batch() {
        return new PushBatch(
                "b1",
                "idem-1",
                List.of(new OutboxEntry(1, "c1", "r1", 2, false, "{\"title\":\"x\"}", java.time.Instant.EPOCH)));
    }

    @Test
    void pullIgnoresUnknownFieldsAndSendsAuthCursorAndRunId() throws Exception {
        web.enqueue(json(200, PULL_OK));
        PullPage page = remote.pull(KEY, Optional.of("4"), 50, 7, "run-7");
        assertThat(page.records()).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo("r1");
            assertThat(r.version()).isEqualTo(2);
            assertThat(r.payloadJson()).isEqualTo("{\"title\":\"T\"}");
        });
        assertThat(page.nextCursor()).isEqualTo("9");
        RecordedRequest req = web.takeRequest();
        assertThat(req.getTarget()).isEqualTo("/v1/users/alice/scopes/course_sync/changes?limit=50&since=4");
        assertThat(req.getHeaders().get("Authorization")).isEqualTo("Bearer tok-a");
        assertThat(req.getHeaders().get("Sync-Run-Id")).isEqualTo("run-7");
    }

    @Test
    void pullSendsTheRunsFencingTokenAndTheClientIdLikeAPush() throws Exception {
        web.enqueue(json(200, PULL_OK));

        remote.pull(KEY, Optional.empty(), 50, 12, "run-7");

        RecordedRequest req = web.takeRequest();
        assertThat(req.getMethod()).isEqualTo("GET");
        assertThat(req.getHeaders().get("Fencing-Token")).isEqualTo("12");
        assertThat(req.getHeaders().get("Client-Id")).isEqualTo("client-1");
    }

    @Test
    void aStaleFencingTokenOnAPullIsAnHttpErrorWithItsCode() {
        web.enqueue(json(409, "{\"code\":\"stale_fencing_token\",\"message\":\"fencing token 1 is stale\"}"));

        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.HTTP);
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.code()).isEqualTo("stale_fencing_token");
                });
    }

    @Test
    void malformedJsonIsAClearFailure() {
        web.enqueue(json(200, "{\"changes\": [ {\"id\": "));
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOf(RemoteException.class)
                .hasMessageContaining("malformed");
    }

    @Test
    void missingFieldsAreAClearFailure() {
        web.enqueue(json(200, "{\"changes\":[{\"id\":\"r1\"}],\"nextCursor\":\"1\",\"hasMore\":false}"));
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOf(RemoteException.class)
                .hasMessageContaining("missing 'version'");
    }

    @Test
    void truncatedBodyIsAClearFailureAfterOneRetryOfTheSafeRequest() {
        for (int i = 0; i < 2; i++) {
            web.enqueue(new MockResponse.Builder()
                    .code(200)
                    .addHeader("Content-Type", "application/json")
                    .body(PULL_OK + " ".repeat(100_000))
                    .onResponseBody(SocketEffect.ShutdownConnection.INSTANCE)
                    .build());
        }
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOf(RemoteException.class)
                .satisfies(e -> assertThat(((RemoteException) e).kind()).isEqualTo(RemoteException.Kind.AMBIGUOUS));
        assertThat(web.getRequestCount()).isEqualTo(2);
    }

    @Test
    void aBrokenConnectionOnAPullIsRetriedOnceAndThenSucceeds() throws Exception {
        web.enqueue(new MockResponse.Builder()
                .onRequestStart(new SocketEffect.CloseSocket())
                .build());
        web.enqueue(json(200, PULL_OK));
        assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "r").records()).hasSize(1);
    }

    @Test
    void wrongContentTypeIsRefused() {
        web.enqueue(new MockResponse.Builder()
                .code(200)
                .addHeader("Content-Type", "text/html")
                .body("<html>login</html>")
                .build());
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOf(RemoteException.class)
                .hasMessageContaining("expected JSON but got content type text/html");
    }

    @Test
    void serverErrorCarriesStatusCodeAndMessage() {
        web.enqueue(json(500, "{\"code\":\"internal_error\",\"message\":\"disk full\"}"));
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOf(RemoteException.class)
                .hasMessage("the sync server failed (HTTP 500 internal_error on pull alice|course_sync: disk full)");
    }

    @Test
    void rateLimitCarriesRetryAfter() {
        web.enqueue(new MockResponse.Builder()
                .code(429)
                .addHeader("Retry-After", "3")
                .addHeader("Content-Type", "application/json")
                .body("{\"code\":\"rate_limited\",\"message\":\"slow down\"}")
                .build());
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.status()).isEqualTo(429);
                    assertThat(e.retryAfterMillis()).isEqualTo(3000);
                    assertThat(e.userMessage()).isEqualTo("the sync server is busy (HTTP 429)");
                });
    }

    @Test
    void pushSendsIdempotencyAndFencingHeadersAndAnUnreadableAnswerIsAmbiguous() throws Exception {
        web.enqueue(json(200, "{\"results\": 42}"));
        assertThatThrownBy(() -> remote.push(KEY, batch(), 7, "run-1"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.AMBIGUOUS);
                    assertThat(e.getMessage()).contains("may have been applied");
                });
        RecordedRequest req = web.takeRequest();
        assertThat(req.getHeaders().get("Idempotency-Key")).isEqualTo("idem-1");
        assertThat(req.getHeaders().get("Fencing-Token")).isEqualTo("7");
        assertThat(req.getHeaders().get("Client-Id")).isEqualTo("client-1");
        assertThat(req.getBody().utf8())
                .isEqualTo(
                        "{\"changes\":[{\"changeId\":\"c1\",\"id\":\"r1\",\"baseVersion\":2,\"deleted\":false,\"payload\":{\"title\":\"x\"}}]}");
    }

    @Test
    void droppedConnectionOnPushIsAmbiguousAndNeverRetriedByOkHttp() throws Exception {
        web.enqueue(new MockResponse.Builder()
                .onRequestBody(SocketEffect.ShutdownConnection.INSTANCE)
                .build());
        web.enqueue(json(200, "{\"results\":[]}"));
        assertThatThrownBy(() -> remote.push(KEY, batch(), 7, "run-1"))
                .isInstanceOfSatisfying(
                        RemoteException.class, e -> assertThat(e.kind()).isEqualTo(RemoteException.Kind.AMBIGUOUS));
        Thread.sleep(300);
        assertThat(web.getRequestCount()).as("OkHttp must not resend the push").isLessThanOrEqualTo(1);
        assertThat(web.takeRequest(5, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
        assertThat(web.takeRequest(200, java.util.concurrent.TimeUnit.MILLISECONDS))
                .isNull();
    }

    @Test
    void badAnswersDuringARunLoseNothingFromTheOutbox() throws Exception {
        try (LocalStore store = LocalStore.openInMemory();
                ClientStack client = new ClientStack(
                        store,
                        web.url("/").toString(),
                        Map.of("alice", "tok-a"),
                        TimeSource.system(),
                        new SyncSettings(100, 10, 2, Duration.ofMillis(10), Duration.ofHours(24)),
                        HttpSettings.DEFAULT)) {
            String id = client.edits.addEdit(KEY, "r1", "{\"title\":\"mine\"}", false);
            web.enqueue(json(200, PULL_OK)); // pull
            web.enqueue(json(200, "not json at all")); // push: unreadable → ambiguous
            web.enqueue(json(500, "{\"code\":\"internal_error\",\"message\":\"x\"}")); // query 1
            web.enqueue(json(200, "{\"state\":\"banana\"}")); // query 2: malformed
            RunResult r = client.sync(KEY, TaskSource.MANUAL);
            assertThat(r.status()).isEqualTo(RunStatus.NEEDS_ATTENTION);
            assertThat(r.message().orElseThrow()).contains("could not be confirmed");
            assertThat(client.edits.outbox(KEY)).extracting(i -> i.changeId()).containsExactly(id);
            assertThat(store.history().checkpoint(KEY).orElseThrow().idempotencyKey())
                    .isPresent();
        }
    }
}
