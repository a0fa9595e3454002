package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.SessionsClient;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.SessionsProxy;

/**
 * A session the server no longer accepts (HTTP 401: revoked, expired, the user disabled) ends a run
 * at once as signed out — on a pull, on a push, and on the question about a push whose answer was
 * lost — keeps the outbox and the records, and the first run after signing in again pushes the kept
 * edits, each applied once. Against the real reference server behind the §12 session layer
 * ({@link SessionsProxy}).
 */
class SignedOutSyncTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");
    static final String PASSWORD = "correct horse battery staple";

    ReferenceServer server;
    SessionsProxy proxy;
    LocalStore store;
    ClientStack client;
    final Map<String, String> tokens = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        server = ReferenceServer.start(ServerConfig.defaults());
        proxy = new SessionsProxy(server).user("alice", PASSWORD).start();
        store = LocalStore.openInMemory();
        signIn();
        client = new ClientStack(store, proxy.url(), tokens);
    }

    @AfterEach
    void tearDown() {
        client.close();
        store.close();
        proxy.close();
        server.close();
    }

    private void signIn() {
        OkHttpClient http = HttpSyncRemote.newSharedClient(ServerUrls.single(proxy.url()));
        tokens.put("alice", new SessionsClient(ServerUrls.single(proxy.url()), http, HttpSettings.DEFAULT)
                .signIn("alice", PASSWORD.toCharArray(), "test").token());
    }

    private long requestsNow() {
        return proxy.requests.size();
    }

    @Test
    void aRefusedPullEndsTheRunSignedOutAtOnceAndKeepsTheEdits() throws Exception {
        client.edits.addEdit(ALICE, "c1", "{\"title\":\"Algebra\"}", false);
        proxy.revokeAll("alice");
        long before = requestsNow();
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.SIGNED_OUT);
        assertThat(r.message().orElse("")).contains("sign in again").contains("401 invalid_token");
        assertThat(requestsNow() - before).as("one refused pull, nothing retried").isEqualTo(1);
        assertThat(client.edits.outbox(ALICE)).hasSize(1);
        assertThat(store.history().lastRun(ALICE).flatMap(org.leasesync.run.RunRecord::status))
                .contains(RunStatus.SIGNED_OUT);
        assertThat(client.registry.lease(ALICE).orElseThrow().isHeld()).as("the lease is released").isFalse();

        signIn();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(proxy.pushes).hasSize(1).allMatch(b -> b.contains("\"c1\""));
    }

    @Test
    void aRefusedPushIsNotAmbiguousTheRunStopsAndTheNextSignInPushesTheEdits() throws Exception {
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        client.edits.addEdit(ALICE, "c1", "{\"title\":\"Algebra\"}", false);
        client.edits.addEdit(ALICE, "c2", "{\"title\":\"Topology\"}", false);
        // the pull passes; the session ends just before the push
        proxy.requests.clear();
        proxy.revokeBeforeNextPush = true;
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.SIGNED_OUT);
        assertThat(proxy.requests).as("pull, one refused push, no query, no resend")
                .filteredOn(s -> s.contains("/changes") || s.contains("/pushes/")).hasSize(2);
        assertThat(client.edits.outbox(ALICE)).hasSize(2);

        signIn();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(server.stats().changesApplied()).isEqualTo(2);
        assertThat(server.stats().mostApplicationsOfOneChange()).isEqualTo(1);
    }

    @Test
    void aPushWhoseAnswerWasLostIsAskedAboutAfterTheNextSignInAndAppliedOnce() throws Exception {
        client.edits.addEdit(ALICE, "c1", "{\"title\":\"Algebra\"}", false);
        proxy.loseNextPushAnswerAndRevoke = true;
        long started = System.nanoTime();
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.SIGNED_OUT);
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - started))
                .as("no backoff of query attempts against a refused session").isLessThan(java.time.Duration.ofSeconds(5));
        assertThat(proxy.requests).filteredOn(s -> s.contains("/pushes/")).as("one question, refused").hasSize(1);
        assertThat(store.history().checkpoint(ALICE).orElseThrow().hasPushInFlight())
                .as("the push really may have arrived: it stays in flight").isTrue();

        signIn();
        proxy.requests.clear();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(proxy.requests).as("asked about first, not resent")
                .filteredOn(s -> s.startsWith("GET") && s.contains("/pushes/")).hasSize(1);
        assertThat(proxy.requests).filteredOn(s -> s.startsWith("POST") && s.contains("/changes")).isEmpty();
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(server.stats().mostApplicationsOfOneChange()).isEqualTo(1);
    }
}
