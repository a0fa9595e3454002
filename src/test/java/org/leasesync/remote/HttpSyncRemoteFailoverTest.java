package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.RemoteException;
import org.leasesync.sync.SyncSettings;
import org.leasesync.testing.ClientStack;

/**
 * Several server URLs against scripted servers on loopback: which requests go where, in which
 * order, and what is never sent twice (invariant 7, query before retry: docs/architecture.md).
 */
class HttpSyncRemoteFailoverTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final String PULL_EMPTY = "{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":false}";
    static final HttpSettings TIMEOUTS =
            new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(8));
    static final SyncSettings FAST_CONFIRM = new SyncSettings(100, 10, 3, Duration.ofMillis(10), Duration.ofHours(24));

    MockWebServer one;
    MockWebServer two;
    final List<AutoCloseable> closeLater = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        one = new MockWebServer();
        two = new MockWebServer();
        one.start();
        two.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        one.close();
        two.close();
        for (AutoCloseable c : closeLater) {
            c.close();
        }
    }

    static MockResponse json(int code, String body) {
        return new MockResponse.Builder()
                .code(code)
                .addHeader("Content-Type", "application/json")
                .body(body)
                .build();
    }

    static MockResponse unavailable(int retryAfterSeconds) {
        return new MockResponse.Builder()
                .code(503)
                .addHeader("Content-Type", "application/json")
                .addHeader("Retry-After", retryAfterSeconds)
                .body("{\"code\":\"unavailable\",\"message\":\"shutting down\"}")
                .build();
    }

    static String applied(String changeId, long version) {
        return "{\"results\":[{\"changeId\":\"" + changeId + "\",\"id\":\"r1\",\"status\":\"applied\",\"version\":"
                + version + "}]}";
    }

    /** A loopback port nobody listens on: connecting is refused at once. */
    static String refusing() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    /**
     * A listening port whose accept queue is full and never drained: the kernel drops further
     * connection attempts, so connecting times out (the request is never written).
     */
    String blackhole() throws IOException {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        closeLater.add(s);
        for (int i = 0; i < 2; i++) {
            Socket filler = new Socket();
            filler.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort()), 1000);
            closeLater.add(filler);
        }
        return "http://127.0.0.1:" + s.getLocalPort();
    }

    HttpSyncRemote remote(String servers, HttpSettings timeouts) {
        return new HttpSyncRemote(servers, ClientStack.HTTP, timeouts, Map.of("alice", "tok-a")::get, "client-1");
    }

    static String url(MockWebServer web) {
        return web.url("/").toString();
    }

    static PushBatch batch(String changeId) {
        return new PushBatch(
                "b1",
                "idem-1",
                List.of(new OutboxEntry(1, changeId, "r1", 2, false, "{\"title\":\"x\"}", java.time.Instant.EPOCH)));
    }

    /** The request lines a server received, in order. */
    static List<String> requests(MockWebServer web) throws InterruptedException {
        List<String> lines = new ArrayList<>();
        RecordedRequest r;
        while ((r = web.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            lines.add(r.getMethod() + " " + r.getTarget()
                    + (r.getHeaders().get("Idempotency-Key") == null
                            ? ""
                            : " key=" + r.getHeaders().get("Idempotency-Key")));
        }
        return lines;
    }

    ClientStack client(LocalStore store, String servers) {
        return new ClientStack(store, servers, Map.of("alice", "tok-a"), TimeSource.system(), FAST_CONFIRM, TIMEOUTS);
    }

    @Test
    void whenTheFirstUrlRefusesConnectionsEveryRequestOfTheSyncGoesToTheSecond() throws Exception {
        try (LocalStore store = LocalStore.openInMemory();
                ClientStack client = client(store, refusing() + "," + url(two))) {
            String changeId = client.edits.addEdit(KEY, "r1", "{\"title\":\"mine\"}", false);
            two.enqueue(json(200, PULL_EMPTY));
            two.enqueue(json(200, applied(changeId, 3)));

            RunResult r = client.sync(KEY, TaskSource.MANUAL);

            assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(client.edits.outbox(KEY)).isEmpty();
            List<String> got = requests(two);
            assertThat(got).hasSize(2);
            assertThat(got.get(0)).startsWith("GET /v1/users/alice/scopes/course_sync/changes?limit=100");
            assertThat(got.get(1)).startsWith("POST /v1/users/alice/scopes/course_sync/changes key=");
            assertThat(client.remote.currentServer()).isEqualTo(two.url("/"));
        }
    }

    @Test
    void aConnectTimeoutIsFailedOverForAPushBecauseThePushWasNeverSent() throws Exception {
        HttpSyncRemote remote = remote(
                blackhole() + "," + url(two),
                new HttpSettings(Duration.ofMillis(300), Duration.ofSeconds(2), Duration.ofSeconds(8)));
        two.enqueue(json(200, applied("c1", 3)));

        assertThat(remote.push(KEY, batch("c1"), 7, "run-1").results())
                .singleElement()
                .satisfies(p -> assertThat(p.version()).isEqualTo(3));

        assertThat(requests(two)).containsExactly("POST /v1/users/alice/scopes/course_sync/changes key=idem-1");
    }

    @Test
    void a503FailsOverAndLaterCallsStickToTheInstanceThatAnswered() throws Exception {
        HttpSyncRemote remote = remote(url(one) + "," + url(two), TIMEOUTS);
        one.enqueue(unavailable(5));
        one.enqueue(json(200, PULL_EMPTY)); // back again: must not be used while the second one answers
        for (int i = 0; i < 3; i++) {
            two.enqueue(json(200, PULL_EMPTY));
        }

        for (int i = 0; i < 3; i++) {
            assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "run-" + i).nextCursor())
                    .isEqualTo("1");
        }

        assertThat(requests(one)).hasSize(1);
        assertThat(requests(two)).hasSize(3);
        assertThat(remote.currentServer()).isEqualTo(two.url("/"));
    }

    @Test
    void aPushAnswered503IsSentToTheNextInstanceWithTheSameIdempotencyKeyAndBody() throws Exception {
        HttpSyncRemote remote = remote(url(one) + "," + url(two), TIMEOUTS);
        one.enqueue(unavailable(1));
        two.enqueue(json(200, applied("c1", 3)));

        assertThat(remote.push(KEY, batch("c1"), 7, "run-1").results()).hasSize(1);

        RecordedRequest first = one.takeRequest();
        RecordedRequest second = two.takeRequest();
        assertThat(second.getHeaders().get("Idempotency-Key"))
                .isEqualTo(first.getHeaders().get("Idempotency-Key"))
                .isEqualTo("idem-1");
        assertThat(second.getHeaders().get("Fencing-Token")).isEqualTo("7");
        assertThat(second.getHeaders().get("Authorization")).isEqualTo("Bearer tok-a");
        assertThat(second.getBody()).isEqualTo(first.getBody());
    }

    @Test
    void aPushWhoseConnectionDropsAfterSendingIsQueriedBeforeAnythingIsSentElsewhereAndSettledByTheAnswer()
            throws Exception {
        try (LocalStore store = LocalStore.openInMemory();
                ClientStack client = client(store, url(one) + "," + url(two))) {
            String changeId = client.edits.addEdit(KEY, "r1", "{\"title\":\"mine\"}", false);
            one.enqueue(json(200, PULL_EMPTY));
            one.enqueue(new MockResponse.Builder()
                    .onResponseStart(new SocketEffect.CloseSocket())
                    .build()); // applied, answer lost
            one.enqueue(unavailable(1)); // then it shuts down
            two.enqueue(json(
                    200, "{\"state\":\"completed\",\"statusCode\":200,\"response\":" + applied(changeId, 7) + "}"));

            RunResult r = client.sync(KEY, TaskSource.MANUAL);

            assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            List<String> atOne = requests(one);
            List<String> atTwo = requests(two);
            assertThat(atOne).hasSize(3);
            assertThat(atOne.get(0)).startsWith("GET /v1/users/alice/scopes/course_sync/changes");
            assertThat(atOne.get(1)).startsWith("POST /v1/users/alice/scopes/course_sync/changes key=");
            String key = atOne.get(1).substring(atOne.get(1).indexOf("key=") + 4);
            assertThat(atOne.get(2)).isEqualTo("GET /v1/users/alice/scopes/course_sync/pushes/" + key);
            assertThat(atTwo)
                    .as("no resend anywhere: only the query, answered by the second instance")
                    .containsExactly("GET /v1/users/alice/scopes/course_sync/pushes/" + key);
            assertThat(client.edits.outbox(KEY)).isEmpty();
            assertThat(client.edits.records(KEY))
                    .singleElement()
                    .satisfies(rec -> assertThat(rec.version()).isEqualTo(7));
        }
    }

    @Test
    void a502OnAPushIsAmbiguousAndIsQueriedNotResent() throws Exception {
        HttpSyncRemote remote = remote(url(one) + "," + url(two), TIMEOUTS);
        one.enqueue(json(502, "{\"message\":\"bad gateway\"}"));
        assertThatThrownBy(() -> remote.push(KEY, batch("c1"), 7, "run-1"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.AMBIGUOUS);
                    assertThat(e.getMessage()).contains("HTTP 502", "may have applied it");
                });
        assertThat(requests(two)).isEmpty();

        try (LocalStore store = LocalStore.openInMemory();
                ClientStack client = client(store, url(one) + "," + url(two))) {
            String changeId = client.edits.addEdit(KEY, "r1", "{\"title\":\"mine\"}", false);
            requests(one);
            one.enqueue(json(200, PULL_EMPTY));
            one.enqueue(json(504, "{\"message\":\"gateway timeout\"}"));
            one.enqueue(json(
                    200, "{\"state\":\"completed\",\"statusCode\":200,\"response\":" + applied(changeId, 4) + "}"));

            RunResult r = client.sync(KEY, TaskSource.MANUAL);

            assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            List<String> atOne = requests(one);
            assertThat(atOne).hasSize(3);
            assertThat(atOne.get(1)).startsWith("POST ");
            assertThat(atOne.get(2)).startsWith("GET /v1/users/alice/scopes/course_sync/pushes/");
            assertThat(requests(two)).isEmpty();
            assertThat(client.edits.outbox(KEY)).isEmpty();
        }
    }

    @Test
    void a429IsNotAReasonToFailOver() throws Exception {
        HttpSyncRemote remote = remote(url(one) + "," + url(two), TIMEOUTS);
        one.enqueue(new MockResponse.Builder()
                .code(429)
                .addHeader("Retry-After", "3")
                .addHeader("Content-Type", "application/json")
                .body("{\"code\":\"rate_limited\",\"message\":\"slow\"}")
                .build());

        assertThatThrownBy(() -> remote.push(KEY, batch("c1"), 7, "run-1"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.HTTP);
                    assertThat(e.status()).isEqualTo(429);
                    assertThat(e.retryAfterMillis()).isEqualTo(3000);
                });
        assertThat(requests(two)).isEmpty();
    }

    @Test
    void whenNoUrlCanBeReachedTheErrorSaysSoAndListsThem() throws Exception {
        String a = refusing();
        String b = refusing();
        HttpSyncRemote remote = remote(a + ", " + b, TIMEOUTS);

        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.NOT_SENT);
                    assertThat(e.userMessage())
                            .isEqualTo("cannot reach the sync server at any of " + a + "/, " + b + "/");
                    assertThat(e.getMessage())
                            .contains(
                                    "pull alice|course_sync", a + "/ (connection refused", b + "/ (connection refused");
                });
        assertThatThrownBy(() -> remote.push(KEY, batch("c1"), 7, "run-1"))
                .isInstanceOfSatisfying(
                        RemoteException.class,
                        e -> assertThat(e.kind())
                                .as("the push was sent nowhere")
                                .isEqualTo(RemoteException.Kind.NOT_SENT));
    }

    @Test
    void whenEveryReachableInstanceAnswers503ItIsAServerErrorWithTheSoonestRetryAfter() throws Exception {
        String dead = refusing();
        HttpSyncRemote remote = remote(url(one) + "," + dead + "," + url(two), TIMEOUTS);
        one.enqueue(unavailable(9));
        two.enqueue(unavailable(2));

        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.HTTP);
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.retryAfterMillis()).isEqualTo(2000);
                    assertThat(e.userMessage())
                            .isEqualTo("no sync server is available (" + url(one) + ": HTTP 503, " + dead
                                    + "/: unreachable, " + url(two) + ": HTTP 503)");
                });
        assertThat(remote.currentServer())
                .as("nothing answered: the first stays first")
                .isEqualTo(one.url("/"));
    }

    @Test
    void allAttemptsOfOnePushStayWithinTheCallTimeout() throws Exception {
        HttpSyncRemote remote = remote(
                blackhole() + "," + blackhole() + "," + url(two),
                new HttpSettings(Duration.ofMillis(700), Duration.ofSeconds(1), Duration.ofSeconds(1)));
        two.enqueue(json(200, applied("c1", 3)));

        assertThatThrownBy(() -> remote.push(KEY, batch("c1"), 7, "run-1"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.NOT_SENT);
                    assertThat(e.userMessage())
                            .startsWith("cannot reach the sync server at any of ")
                            .endsWith("; 1 more not tried: the call timeout ran out");
                });
        assertThat(requests(two)).isEmpty();
    }

    @Test
    void eachAttemptOfAReadLeavesTheNextUrlHalfTheTimeLeft() throws Exception {
        HttpSyncRemote remote = remote(
                blackhole() + "," + blackhole() + "," + url(two),
                new HttpSettings(Duration.ofMillis(700), Duration.ofSeconds(1), Duration.ofMillis(1200)));
        two.enqueue(json(200, PULL_EMPTY));

        assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "r").nextCursor()).isEqualTo("1");

        assertThat(requests(two)).hasSize(1);
    }

    @Test
    void oneUrlFailsExactlyAsBefore() throws Exception {
        String dead = refusing();
        HttpSyncRemote remote = remote(dead, TIMEOUTS);
        assertThatThrownBy(() -> remote.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.NOT_SENT);
                    assertThat(e.userMessage()).isEqualTo("cannot reach the sync server at " + dead + "/");
                });
        HttpSyncRemote single = remote(url(one), TIMEOUTS);
        one.enqueue(unavailable(4));
        assertThatThrownBy(() -> single.pull(KEY, Optional.empty(), 10, 1, "r"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.retryAfterMillis()).isEqualTo(4000);
                    assertThat(e.userMessage()).isEqualTo("the sync server is unavailable (HTTP 503)");
                });
    }
}
