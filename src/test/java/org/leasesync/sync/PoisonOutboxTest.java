package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.security.MessageDigest;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * One outbox entry the server can never accept blocks nothing behind it. Against
 * the real reference server on loopback — directly, or through a proxy (MockWebServer forwarding to
 * it) that plays a stricter server or a proxy with a smaller body limit. Every case checks that the
 * other entries were applied exactly once and that no idempotency key was ever sent with two bodies.
 */
class PoisonOutboxTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");
    static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

    ReferenceServer server;
    LocalStore store;
    ClientStack client;
    MockWebServer proxy;
    /** Idempotency key → SHA-256 of every body sent with it, through the proxy. */
    final Map<String, List<String>> bodiesByKey = new ConcurrentHashMap<>();

    final List<String> pushedRecordSets = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
        store = openStore();
    }

    /** A fresh local store; the PostgreSQL subclass gives one on a real PostgreSQL. */
    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        store.close();
        server.close();
    }

    void direct() {
        client = new ClientStack(store, server.baseUrl(), Map.of("alice", server.tokenFor("alice")));
    }

    /**
     * Through a proxy: {@code refuse} may answer a push itself (a refusal, or a dropped connection);
     * otherwise the request goes to the real server and its answer comes back.
     */
    void throughProxy(Function<String, Optional<MockResponse>> refuse) throws IOException {
        proxy = new MockWebServer();
        proxy.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest req) {
                String body = req.getBody() == null ? "" : req.getBody().utf8();
                boolean push = req.getMethod().equals("POST");
                if (push) {
                    bodiesByKey
                            .computeIfAbsent(req.getHeaders().get("Idempotency-Key"), k -> new CopyOnWriteArrayList<>())
                            .add(sha256(body));
                    pushedRecordSets.add(recordIds(body).toString());
                    Optional<MockResponse> own = refuse.apply(body);
                    if (own.isPresent()) {
                        return own.get();
                    }
                }
                return forward(req, body);
            }
        });
        proxy.start();
        client = new ClientStack(store, proxy.url("/").toString(), Map.of("alice", server.tokenFor("alice")));
    }

    MockResponse forward(RecordedRequest req, String body) {
        Request.Builder out =
                new Request.Builder().url(okhttp3.HttpUrl.get(server.baseUrl()).resolve(req.getTarget()));
        for (String name : List.of("Authorization", "Idempotency-Key", "Fencing-Token", "Client-Id", "Sync-Run-Id")) {
            String v = req.getHeaders().get(name);
            if (v != null) {
                out.header(name, v);
            }
        }
        out.method(req.getMethod(), req.getMethod().equals("GET") ? null : RequestBody.create(body, JSON));
        try (Response r = ClientStack.HTTP.newCall(out.build()).execute()) {
            MockResponse.Builder back =
                    new MockResponse.Builder().code(r.code()).body(r.body().string());
            for (String name : List.of("Content-Type", "Retry-After", "Idempotent-Replayed")) {
                String v = r.header(name);
                if (v != null) {
                    back.addHeader(name, v);
                }
            }
            return back.build();
        } catch (IOException | RuntimeException e) {
            return new MockResponse.Builder().code(502).body("proxy: " + e).build();
        }
    }

    static MockResponse answer(int status, String contentType, String body) {
        return new MockResponse.Builder()
                .code(status)
                .addHeader("Content-Type", contentType)
                .body(body)
                .build();
    }

    static List<String> recordIds(String body) {
        List<String> ids = new ArrayList<>();
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\"id\":\"([^\"]+)\"").matcher(body);
        while (m.find()) {
            ids.add(m.group(1));
        }
        return ids;
    }

    static String sha256(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256")
                            .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An outbox row as an older version (or another tool) could leave it: no size check on the way in. */
    String insertRaw(String recordId, String payload) {
        String changeId = UUID.randomUUID().toString();
        store.database().transaction("insert a raw outbox entry", c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (user_id, scope, change_id, record_id,"
                    + " base_version, deleted, payload, created_at_ms, state) VALUES ('alice', 'course_sync', ?, ?, 0,"
                    + " FALSE, ?, 0, 'pending')")) {
                ps.setString(1, changeId);
                ps.setString(2, recordId);
                ps.setString(3, payload);
                ps.executeUpdate();
            }
            return null;
        });
        return changeId;
    }

    static String bigPayload(int bytes) {
        return "{\"blob\":\"" + "x".repeat(bytes) + "\"}";
    }

    JdbcLocalEdits.OutboxItem item(String changeId) {
        return client.edits.outbox(ALICE).stream()
                .filter(i -> i.changeId().equals(changeId))
                .findFirst()
                .orElseThrow();
    }

    void assertAppliedOnce(List<String> changeIds) {
        var stats = server.stats();
        assertThat(stats.changesApplied()).isEqualTo(changeIds.size());
        assertThat(stats.appliedByChangeId().values().stream()
                        .flatMap(m -> m.values().stream())
                        .toList())
                .hasSize(changeIds.size())
                .containsOnly(1);
    }

    void assertNoKeyReusedForAnotherBody() {
        assertThat(bodiesByKey)
                .allSatisfy((key, hashes) -> assertThat(hashes)
                        .as("bodies sent with idempotency key %s", key)
                        .containsOnly(hashes.get(0)));
    }

    /**
     * An edit too large for any push (saved by an older version), then an ordinary edit of another
     * record: the first is set aside without being sent, naming the limit; the second is pushed.
     */
    @Test
    void anEditTheServerRefusesAsTooLargeIsSetAsideAndTheEditBehindItIsPushed() throws Exception {
        direct();
        String big = insertRaw("huge", bigPayload(5 * 1024 * 1024 + 100));
        String small = client.edits.addEdit(ALICE, "course-9", "{\"title\":\"Topology\"}", false);

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.record(ALICE, "course-9").orElseThrow().version())
                .isEqualTo(1);
        JdbcLocalEdits.OutboxItem rejected = item(big);
        assertThat(rejected.state()).isEqualTo("rejected");
        assertThat(rejected.rejectedReason().orElseThrow())
                .isEqualTo("the edit of record 'huge' cannot be sent: its content is 5,242,991 bytes; a record may have"
                        + " at most 5,238,784 bytes (5 MiB less 4 KiB)");
        assertThat(rejected.rejectedAt()).isPresent();
        assertThat(client.edits.outbox(ALICE))
                .extracting(JdbcLocalEdits.OutboxItem::changeId)
                .containsExactly(big);
        assertThat(client.edits.pendingCount(ALICE)).isZero();
        assertAppliedOnce(List.of(small));

        long pushesBefore = server.stats().pushes();
        assertThat(client.sync(ALICE, TaskSource.SCHEDULE).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().pushes())
                .as("the rejected entry is not sent again")
                .isEqualTo(pushesBefore);

        assertThat(client.edits.discardSetAside(ALICE, big)).isTrue();
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(client.edits.discardSetAside(ALICE, big)).isFalse();
    }

    /**
     * A proxy in front with a smaller body limit (nginx's client_max_body_size): batches are split
     * until the one entry it refuses is found; everything else is applied exactly once.
     */
    @Test
    void aBatchRefusedAsTooLargeIsSplitUntilTheOneEntryIsFoundAndEveryOtherIsAppliedOnce() throws Exception {
        throughProxy(body -> body.length() > 2_000
                ? Optional.of(
                        answer(413, "text/html", "<html><body><h1>413 Request Entity Too Large</h1></body></html>"))
                : Optional.empty());
        List<String> ok = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ok.add(client.edits.addEdit(ALICE, "r" + i, "{\"n\":" + i + "}", false));
        }
        String bad = client.edits.addEdit(ALICE, "too-big-for-the-proxy", bigPayload(2_500), false);
        for (int i = 4; i < 9; i++) {
            ok.add(client.edits.addEdit(ALICE, "r" + i, "{\"n\":" + i + "}", false));
        }

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(item(bad).state()).isEqualTo("rejected");
        assertThat(item(bad).rejectedReason().orElseThrow()).startsWith("the sync server refused it (HTTP 413");
        assertThat(client.edits.outbox(ALICE))
                .extracting(JdbcLocalEdits.OutboxItem::changeId)
                .containsExactly(bad);
        for (int i = 0; i < 9; i++) {
            assertThat(client.edits.record(ALICE, "r" + i).orElseThrow().version())
                    .as("r%s", i)
                    .isEqualTo(1);
        }
        assertAppliedOnce(ok);
        assertNoKeyReusedForAnotherBody();
        assertThat(pushedRecordSets.get(0)).contains("too-big-for-the-proxy", "r0", "r8"); // one batch first
        assertThat(pushedRecordSets).contains("[too-big-for-the-proxy]"); // then alone
    }

    /** A stricter server that names the bad entry (400, protocol §5): only that entry is set aside. */
    @Test
    void aRefusalNamingOneEntrySetsAsideThatEntryAndSendsTheRestUnderANewKey() throws Exception {
        throughProxy(body -> recordIds(body).contains("forbidden")
                ? Optional.of(answer(
                        400,
                        "application/json",
                        "{\"code\":\"bad_request\",\"message\":\"changes["
                                + recordIds(body).indexOf("forbidden")
                                + "].payload must not contain a field named 'secret'\"}"))
                : Optional.empty());
        String a = client.edits.addEdit(ALICE, "a", "{\"n\":1}", false);
        String bad = client.edits.addEdit(ALICE, "forbidden", "{\"secret\":1}", false);
        String b = client.edits.addEdit(ALICE, "b", "{\"n\":2}", false);

        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(item(bad).rejectedReason().orElseThrow())
                .isEqualTo("the sync server refused it (HTTP 400 bad_request: changes[1].payload must not contain a "
                        + "field named 'secret')");
        assertThat(pushedRecordSets).containsExactly("[a, forbidden, b]", "[a, b]");
        assertThat(bodiesByKey).hasSize(2);
        assertAppliedOnce(List.of(a, b));
        assertNoKeyReusedForAnotherBody();
    }

    /** 422 without naming the entry (a server that validates with 422): split, then set aside alone. */
    @Test
    void aValidationRefusalThatNamesNoEntryIsIsolatedBySplitting() throws Exception {
        throughProxy(body -> recordIds(body).contains("invalid")
                ? Optional.of(answer(
                        422, "application/json", "{\"code\":\"validation_failed\",\"message\":\"invalid record\"}"))
                : Optional.empty());
        List<String> ok = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ok.add(client.edits.addEdit(ALICE, "v" + i, "{\"n\":" + i + "}", false));
        }
        String bad = client.edits.addEdit(ALICE, "invalid", "{\"n\":-1}", false);

        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(item(bad).rejectedReason().orElseThrow()).contains("HTTP 422 validation_failed: invalid record");
        assertAppliedOnce(ok);
        assertNoKeyReusedForAnotherBody();
    }

    /**
     * A server that refuses a whole body naming no entry (its parser stops at the body's depth) does
     * not wedge the outbox: the batch is split down to the entry refused alone, which is set aside once
     * the same request with no entries is accepted; the others and a later edit are applied once.
     */
    @Test
    void aWholeBodyRefusalNamingNoEntryIsNarrowedToTheEntryAndSetsOnlyItAside() throws Exception {
        throughProxy(body -> recordIds(body).contains("poison")
                ? Optional.of(
                        answer(
                                400,
                                "application/json",
                                "{\"code\":\"bad_request\",\"message\":\"malformed JSON"
                                        + " at line 1, column 3012: Document nesting depth (1001) exceeds the maximum allowed (1000)\"}"))
                : Optional.empty());
        List<String> ok = new ArrayList<>();
        ok.add(client.edits.addEdit(ALICE, "a", "{\"n\":1}", false));
        String bad = client.edits.addEdit(ALICE, "poison", "{\"n\":2}", false);
        ok.add(client.edits.addEdit(ALICE, "b", "{\"n\":3}", false));
        ok.add(client.edits.addEdit(ALICE, "c", "{\"n\":4}", false));

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE))
                .extracting(JdbcLocalEdits.OutboxItem::changeId)
                .containsExactly(bad);
        assertThat(item(bad).rejectedReason().orElseThrow())
                .startsWith("the sync server refused it (HTTP 400 bad_request: malformed JSON at line 1");
        assertThat(pushedRecordSets).as("the empty probe was sent and accepted").contains("[]");

        ok.add(client.edits.addEdit(ALICE, "d", "{\"n\":5}", false));
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertAppliedOnce(ok);
        assertNoKeyReusedForAnotherBody();
        assertThat(client.edits.discardSetAside(ALICE, bad)).isTrue();
        assertThat(client.edits.outbox(ALICE)).isEmpty();
    }

    /** A refusal that is not an entry's fault sets nothing aside: the run fails and everything stays pending. */
    @Test
    void aRefusalOfTheRequestItselfFailsTheRunAndSetsNothingAside() throws Exception {
        throughProxy(body -> Optional.of(answer(
                400,
                "application/json",
                "{\"code\":\"bad_request\",\"message\":\"Sync-Run-Id must be printable ASCII\"}")));
        client.edits.addEdit(ALICE, "a", "{\"n\":1}", false);
        client.edits.addEdit(ALICE, "b", "{\"n\":2}", false);

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).isEqualTo(RunStatus.FAILED);
        assertThat(r.message().orElseThrow()).contains("HTTP 400");
        assertThat(client.edits.outbox(ALICE))
                .extracting(JdbcLocalEdits.OutboxItem::state)
                .containsOnly("pending");
        assertThat(server.stats().changesApplied()).isZero();
    }

    /**
     * The first push is lost on the way (the proxy drops the connection before forwarding): the
     * client asks about the key (unknown), resends the identical body under the same key, which is
     * now refused as too large — and is then split, as if refused at once.
     */
    @Test
    void aRefusalOfTheResendAfterAnAmbiguousPushIsIsolatedToo() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean dropped = new java.util.concurrent.atomic.AtomicBoolean();
        throughProxy(body -> {
            if (dropped.compareAndSet(false, true)) {
                return Optional.of(new MockResponse.Builder()
                        .onRequestBody(SocketEffect.ShutdownConnection.INSTANCE)
                        .build());
            }
            return body.length() > 2_000 ? Optional.of(answer(413, "text/plain", "too large")) : Optional.empty();
        });
        String a = client.edits.addEdit(ALICE, "a", "{\"n\":1}", false);
        String bad = client.edits.addEdit(ALICE, "big", bigPayload(2_500), false);

        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(item(bad).state()).isEqualTo("rejected");
        assertThat(pushedRecordSets.subList(0, 2)).containsExactly("[a, big]", "[a, big]"); // the same batch, resent
        assertAppliedOnce(List.of(a));
        assertNoKeyReusedForAnotherBody();
    }

    /** An entry whose stored payload is damaged is set aside without being sent; the others flow. */
    @Test
    void anEntryWhosePayloadIsNotJsonIsSetAsideWithoutBeingSent() throws Exception {
        direct();
        String damaged = insertRaw("damaged", "{\"title\": \"cut off");
        String fine = client.edits.addEdit(ALICE, "fine", "{\"title\":\"ok\"}", false);

        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(item(damaged).rejectedReason().orElseThrow())
                .startsWith("the edit of record 'damaged' cannot be sent: its saved content is not valid JSON");
        assertAppliedOnce(List.of(fine));
    }

    /** A later edit of the record of a rejected entry is not held back by it (it was never applied). */
    @Test
    void aRejectedEntryDoesNotHoldBackTheNextEditOfItsRecordAndCanBeSentAgain() throws Exception {
        direct();
        String big = insertRaw("course-1", bigPayload(5 * 1024 * 1024 + 10));
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(item(big).state()).isEqualTo("rejected");
        String smaller = client.edits.addEdit(ALICE, "course-1", "{\"title\":\"shorter\"}", false);

        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);

        assertThat(client.edits.record(ALICE, "course-1").orElseThrow().payloadJson())
                .isEqualTo("{\"title\":\"shorter\"}");
        assertAppliedOnce(List.of(smaller));
        assertThatThrownBy(() -> client.edits.sendAgain(ALICE, big))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be synced: its content is 5,242,901 bytes");
        assertThat(item(big).state()).isEqualTo("rejected");
    }

    /** Sent again after the cause is gone (the server accepts it now), a set-aside entry is pushed. */
    @Test
    void aSetAsideEntrySentAgainAfterTheCauseIsGoneIsPushed() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean strict = new java.util.concurrent.atomic.AtomicBoolean(true);
        throughProxy(body -> strict.get() && recordIds(body).contains("x")
                ? Optional.of(answer(422, "application/json", "{\"code\":\"validation_failed\",\"message\":\"no\"}"))
                : Optional.empty());
        String x = client.edits.addEdit(ALICE, "x", "{\"v\":1}", false);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(item(x).state()).isEqualTo("rejected");

        strict.set(false);
        assertThat(client.edits.sendAgain(ALICE, x)).isTrue();
        assertThat(item(x).state()).isEqualTo("pending");
        assertThat(item(x).rejectedReason()).isEmpty();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(client.edits.record(ALICE, "x").orElseThrow().version()).isEqualTo(1);
        assertNoKeyReusedForAnotherBody();
    }

    /**
     * The record limit is checked when the edit is made, to the byte, and an edit at the limit is one
     * the real server accepts.
     */
    @Test
    void anEditThatCanNeverFitIsRefusedWhenMadeAndOneThatJustFitsIsApplied() throws Exception {
        direct();
        int fits = org.leasesync.protocol.RecordLimits.MAX_PAYLOAD_BYTES
                - bigPayload(0).length();
        assertThatThrownBy(() -> client.edits.addEdit(ALICE, "edge", bigPayload(fits + 1), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the edit of record 'edge' cannot be synced: its content is 5,238,785 bytes; a record may"
                        + " have at most 5,238,784 bytes (5 MiB less 4 KiB)");
        assertThat(client.edits.outbox(ALICE)).as("nothing saved").isEmpty();

        String edge = client.edits.addEdit(ALICE, "edge", bigPayload(fits), false);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(client.edits.record(ALICE, "edge").orElseThrow().version()).isEqualTo(1);
        assertAppliedOnce(List.of(edge));
    }
}
