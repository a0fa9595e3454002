package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.RemoteException;
import org.leasesync.sync.SyncSettings;
import org.leasesync.testing.ClientStack;

/**
 * An instance that accepts TCP connections and reads requests but never answers — what a process
 * stopped with SIGSTOP looks like from the client, in process (the real SIGSTOP is
 * {@code org.leasesync.cli.FrozenInstanceProcessTest}) — in front of a healthy one: reads go on to
 * the healthy instance, the frozen one is avoided afterwards, and a push it swallowed is settled by
 * asking the healthy instance before anything is sent again.
 */
@Timeout(60)
class FrozenInstanceFailoverTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final String PULL_EMPTY = "{\"changes\":[],\"nextCursor\":\"1\",\"hasMore\":false}";
    static final HttpSettings SHORT =
            new HttpSettings(Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofSeconds(5));

    Frozen frozen;
    MockWebServer healthy;

    /** Accepts every connection and reads what is sent; answers nothing. Counts what it received. */
    static final class Frozen implements AutoCloseable {
        final ServerSocket socket;
        final AtomicInteger connections = new AtomicInteger();
        final List<String> firstLines = new CopyOnWriteArrayList<>();
        final List<Socket> open = new CopyOnWriteArrayList<>();
        final Thread acceptor;

        Frozen() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = new Thread(this::acceptAll, "frozen-instance");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void acceptAll() {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    connections.incrementAndGet();
                    open.add(s);
                    byte[] buf = new byte[8192];
                    int n = s.getInputStream().read(buf);
                    if (n > 0) {
                        firstLines.add(new String(buf, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1)
                                .lines()
                                .findFirst()
                                .orElse(""));
                    }
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort() + "/";
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (Socket s : open) {
                s.close();
            }
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        frozen = new Frozen();
        healthy = new MockWebServer();
        healthy.start();
    }

    @AfterEach
    void tearDown() throws IOException {
        frozen.close();
        healthy.close();
    }

    HttpSyncRemote remote() {
        return new HttpSyncRemote(
                frozen.url() + "," + healthy.url("/"),
                ClientStack.HTTP,
                SHORT,
                Map.of("alice", "tok-a")::get,
                "client-1");
    }

    static MockResponse json(String body) {
        return new MockResponse.Builder()
                .code(200)
                .addHeader("Content-Type", "application/json")
                .body(body)
                .build();
    }

    @Test
    void aPullThatTheFrozenInstanceNeverAnswersGoesToTheNextAndLaterCallsAvoidTheFrozenOne() throws Exception {
        HttpSyncRemote remote = remote();
        for (int i = 0; i < 3; i++) {
            healthy.enqueue(json(PULL_EMPTY));
        }

        for (int i = 0; i < 3; i++) {
            assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "run-" + i).nextCursor())
                    .isEqualTo("1");
        }

        assertThat(frozen.connections.get())
                .as("only the first pull went to the frozen instance")
                .isEqualTo(1);
        assertThat(healthy.getRequestCount()).isEqualTo(3);
        assertThat(remote.currentServer()).isEqualTo(healthy.url("/"));
    }

    @Test
    void aPushStatusQueryGoesOnToTheNextInstance() throws Exception {
        HttpSyncRemote remote = remote();
        healthy.enqueue(json("{\"state\":\"unknown\"}"));

        assertThat(remote.pushStatus(KEY, "idem-1", "run-1").state())
                .isEqualTo(org.leasesync.sync.PushStatus.State.UNKNOWN);

        assertThat(frozen.firstLines).containsExactly("GET /v1/users/alice/scopes/course_sync/pushes/idem-1 HTTP/1.1");
        assertThat(healthy.takeRequest().getTarget()).isEqualTo("/v1/users/alice/scopes/course_sync/pushes/idem-1");
    }

    @Test
    void aPushTheFrozenInstanceSwallowedIsAmbiguousAndNeverSentToTheNextInstanceByTheRemote() throws Exception {
        HttpSyncRemote remote = remote();

        assertThatThrownBy(() -> remote.push(KEY, HttpSyncRemoteFailoverTest.batch("c1"), 7, "run-1"))
                .isInstanceOfSatisfying(RemoteException.class, e -> {
                    assertThat(e.kind()).isEqualTo(RemoteException.Kind.AMBIGUOUS);
                    assertThat(e.getMessage()).contains("timed out", "may have applied it");
                });

        assertThat(healthy.getRequestCount()).isZero();
        assertThat(remote.currentServer())
                .as("the frozen instance is avoided now")
                .isEqualTo(healthy.url("/"));
    }

    @Test
    void aSyncWhosePushAnInstanceSwallowedAsksTheNextInstanceAndResendsThereOnlyBecauseItNeverSawIt() throws Exception {
        SyncSettings fast = new SyncSettings(100, 10, 3, Duration.ofMillis(10), Duration.ofHours(24));
        MockWebServer freezes = new MockWebServer();
        freezes.start();
        try (LocalStore store = LocalStore.openInMemory();
                ClientStack client = new ClientStack(
                        store,
                        freezes.url("/") + "," + healthy.url("/"),
                        Map.of("alice", "tok-a"),
                        TimeSource.system(),
                        fast,
                        SHORT)) {
            String changeId = client.edits.addEdit(KEY, "r1", "{\"title\":\"mine\"}", false);
            freezes.enqueue(json(PULL_EMPTY)); // answers the pull, then
            freezes.enqueue(new MockResponse.Builder()
                    .onResponseStart(SocketEffect.Stall.INSTANCE)
                    .build()); // goes silent
            healthy.enqueue(json("{\"state\":\"unknown\"}")); // the query settles the swallowed push
            healthy.enqueue(json("{\"results\":[{\"changeId\":\"" + changeId
                    + "\",\"id\":\"r1\",\"status\":\"applied\",\"version\":3}]}"));

            RunResult r = client.sync(KEY, TaskSource.MANUAL);

            assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(freezes.takeRequest(1, TimeUnit.SECONDS).getMethod()).isEqualTo("GET");
            var swallowed = freezes.takeRequest(1, TimeUnit.SECONDS);
            assertThat(swallowed.getMethod()).isEqualTo("POST");
            var query = healthy.takeRequest(1, TimeUnit.SECONDS);
            var resent = healthy.takeRequest(1, TimeUnit.SECONDS);
            String key = swallowed.getHeaders().get("Idempotency-Key");
            assertThat(query.getTarget())
                    .as("asked before anything was sent again")
                    .isEqualTo("/v1/users/alice/scopes/course_sync/pushes/" + key);
            assertThat(resent.getMethod()).isEqualTo("POST");
            assertThat(resent.getHeaders().get("Idempotency-Key")).isEqualTo(key);
            assertThat(resent.getBody()).isEqualTo(swallowed.getBody());
            assertThat(healthy.getRequestCount()).isEqualTo(2);
            assertThat(client.edits.outbox(KEY)).isEmpty();
        } finally {
            freezes.close();
        }
    }

    @Test
    void aBodyThatStallsAfterTheHeadersIsASlowBodyAndAReadGoesOnToTheNextInstance() throws Exception {
        MockWebServer stalling = new MockWebServer();
        stalling.start();
        try {
            stalling.enqueue(new MockResponse.Builder()
                    .code(200)
                    .addHeader("Content-Type", "application/json")
                    .body(PULL_EMPTY)
                    .bodyDelay(3, TimeUnit.SECONDS)
                    .build());
            healthy.enqueue(json(PULL_EMPTY));
            HttpSyncRemote remote = new HttpSyncRemote(
                    stalling.url("/") + "," + healthy.url("/"),
                    ClientStack.HTTP,
                    SHORT,
                    Map.of("alice", "tok-a")::get,
                    "client-1");

            assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "run-1").nextCursor())
                    .isEqualTo("1");

            assertThat(stalling.getRequestCount()).isEqualTo(1);
            assertThat(healthy.getRequestCount()).isEqualTo(1);
        } finally {
            stalling.close();
        }
    }

    @Test
    void aConnectionThatBreaksBeforeAnAnswerIsRetriedOnTheSameUrlForAReadAndDoesNotMakeItAvoided() throws Exception {
        MockWebServer breaking = new MockWebServer();
        breaking.start();
        try {
            breaking.enqueue(new MockResponse.Builder()
                    .onRequestStart(new SocketEffect.CloseSocket())
                    .build());
            breaking.enqueue(json(PULL_EMPTY));
            HttpSyncRemote remote = new HttpSyncRemote(
                    breaking.url("/") + "," + healthy.url("/"),
                    ClientStack.HTTP,
                    SHORT,
                    Map.of("alice", "tok-a")::get,
                    "client-1");

            assertThat(remote.pull(KEY, Optional.empty(), 10, 1, "run-1").nextCursor())
                    .isEqualTo("1");

            assertThat(breaking.getRequestCount()).isEqualTo(2);
            assertThat(healthy.getRequestCount()).isZero();
            assertThat(remote.currentServer()).isEqualTo(breaking.url("/"));
        } finally {
            breaking.close();
        }
    }
}
