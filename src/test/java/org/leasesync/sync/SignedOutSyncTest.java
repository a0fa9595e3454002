package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
import org.leasesync.testing.ServerApi;

/**
 * A session the server no longer accepts (HTTP 401: revoked, expired, the user disabled) ends a run
 * at once as signed out — on a pull, on a push, and on the question about a push whose answer was
 * lost — keeps the outbox and the records, and the first run after signing in again pushes the kept
 * edits, each applied once. Against the real reference server and its real sessions: alice signs in
 * with her password, and her phone (another session of hers) revokes this device's session, at the
 * moments the cases need — before a run, as its push leaves, or after the server applied a push
 * whose answer it then dropped (the server's own {@code drop-after-apply} fault). What the server
 * refused and answered is read from its own request metrics.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SignedOutSyncTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    ReferenceServer server;
    String password;
    ServerApi.Session phone;
    LocalStore store;
    ClientStack client;
    final Map<String, String> tokens = new ConcurrentHashMap<>();
    /** "METHOD PATH" of every call this device made, in order. */
    final List<String> sent = new CopyOnWriteArrayList<>();
    /** Revoke this device's session just before its next push leaves. */
    volatile boolean revokeAsTheNextPushLeaves;
    /** Revoke this device's session when the answer to its next push is lost. */
    volatile boolean revokeWhenAPushAnswerIsLost;

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
        password = server.takeDemoPasswords().get("alice");
        phone = ServerApi.PLAIN.signIn(server.baseUrl(), "alice", password, "alice's phone");
        store = LocalStore.openInMemory();
        signIn();
        OkHttpClient http = ClientStack.HTTP
                .newBuilder()
                .addInterceptor(chain -> {
                    Request r = chain.request();
                    sent.add(r.method() + " " + r.url().encodedPath());
                    boolean push =
                            r.method().equals("POST") && r.url().encodedPath().endsWith("/changes");
                    if (push && revokeAsTheNextPushLeaves) {
                        revokeAsTheNextPushLeaves = false;
                        revokeThisDevice();
                    }
                    if (push && revokeWhenAPushAnswerIsLost) {
                        revokeWhenAPushAnswerIsLost = false;
                        try {
                            return chain.proceed(r);
                        } catch (IOException lost) {
                            revokeThisDevice();
                            throw lost;
                        }
                    }
                    return chain.proceed(r);
                })
                .build();
        client = new ClientStack(store, server.baseUrl(), tokens, http);
    }

    @AfterEach
    void tearDown() {
        client.close();
        store.close();
        server.close();
    }

    private void signIn() {
        ServerUrls url = ServerUrls.single(server.baseUrl());
        OkHttpClient http = HttpSyncRemote.newSharedClient(url);
        tokens.put(
                "alice",
                new SessionsClient(url, http, HttpSettings.DEFAULT)
                        .signIn("alice", password.toCharArray(), "test laptop")
                        .token());
    }

    /** Alice, on her phone, revokes the laptop's session (protocol §12). */
    private void revokeThisDevice() {
        assertThat(ServerApi.PLAIN.revokeOthers(phone)).containsExactly("test laptop");
    }

    private long served(String endpoint, int status) {
        return ServerApi.PLAIN.requests(server.baseUrl(), endpoint, status);
    }

    @Test
    void aRefusedPullEndsTheRunSignedOutAtOnceAndKeepsTheEdits() throws Exception {
        client.edits.addEdit(ALICE, "c1", "{\"title\":\"Algebra\"}", false);
        revokeThisDevice();
        int before = sent.size();
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.SIGNED_OUT);
        assertThat(r.message().orElse("")).contains("sign in again").contains("401 invalid_token");
        assertThat(sent.subList(before, sent.size()))
                .as("one refused pull, nothing retried")
                .hasSize(1);
        assertThat(served("pull", 401)).as("the server refused one pull").isEqualTo(1);
        assertThat(served("pull", 200)).isZero();
        assertThat(client.edits.outbox(ALICE)).hasSize(1);
        assertThat(store.history().lastRun(ALICE).flatMap(org.leasesync.run.RunRecord::status))
                .contains(RunStatus.SIGNED_OUT);
        assertThat(client.registry.lease(ALICE).orElseThrow().isHeld())
                .as("the lease is released")
                .isFalse();

        signIn();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(ServerApi.PLAIN.records(phone, "course_sync")).containsEntry("c1", "{\"title\":\"Algebra\"}");
        assertThat(server.stats().mostApplicationsOfOneChange()).isEqualTo(1);
    }

    @Test
    void aRefusedPushIsNotAmbiguousTheRunStopsAndTheNextSignInPushesTheEdits() throws Exception {
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        client.edits.addEdit(ALICE, "c1", "{\"title\":\"Algebra\"}", false);
        client.edits.addEdit(ALICE, "c2", "{\"title\":\"Topology\"}", false);
        // the pull passes; the session ends as the push leaves
        long pulls = served("pull", 200);
        sent.clear();
        revokeAsTheNextPushLeaves = true;
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.SIGNED_OUT);
        assertThat(sent)
                .as("pull, one refused push, no query, no resend")
                .filteredOn(s -> s.contains("/changes") || s.contains("/pushes/"))
                .hasSize(2);
        assertThat(served("pull", 200)).isEqualTo(pulls + 1);
        assertThat(served("push", 401)).as("the server refused the push").isEqualTo(1);
        assertThat(served("push_status", 401) + served("push_status", 200))
                .as("and was not asked about it")
                .isZero();
        assertThat(client.edits.outbox(ALICE)).hasSize(2);
        assertThat(server.stats().changesApplied()).isZero();

        signIn();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(server.stats().changesApplied()).isEqualTo(2);
        assertThat(server.stats().mostApplicationsOfOneChange()).isEqualTo(1);
        assertThat(ServerApi.PLAIN.records(phone, "course_sync")).containsKeys("c1", "c2");
    }

    @Test
    void aPushWhoseAnswerWasLostIsAskedAboutAfterTheNextSignInAndAppliedOnce() throws Exception {
        client.edits.addEdit(ALICE, "c1", "{\"title\":\"Algebra\"}", false);
        // the server applies and commits the push, then closes the connection without an answer
        server.faults().setDropAfterApply(1);
        revokeWhenAPushAnswerIsLost = true;
        long started = System.nanoTime();
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.SIGNED_OUT);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("no backoff of query attempts against a refused session")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(sent)
                .filteredOn(s -> s.contains("/pushes/"))
                .as("one question")
                .hasSize(1);
        assertThat(served("push_status", 401)).as("refused by the server").isEqualTo(1);
        assertThat(store.history().checkpoint(ALICE).orElseThrow().hasPushInFlight())
                .as("the push really may have arrived: it stays in flight")
                .isTrue();
        assertThat(server.stats().changesApplied()).as("it did arrive").isEqualTo(1);

        signIn();
        sent.clear();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(sent)
                .as("asked about first, not resent")
                .filteredOn(s -> s.startsWith("GET") && s.contains("/pushes/"))
                .hasSize(1);
        assertThat(sent)
                .filteredOn(s -> s.startsWith("POST") && s.contains("/changes"))
                .isEmpty();
        assertThat(served("push_status", 200)).isEqualTo(1);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(server.stats().mostApplicationsOfOneChange()).isEqualTo(1);
        assertThat(ServerApi.PLAIN.records(phone, "course_sync")).containsEntry("c1", "{\"title\":\"Algebra\"}");
    }
}
