package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.server.store.ServerStats;
import org.leasesync.testing.PostgresTest;

/**
 * Three reference server instances in this JVM on one real PostgreSQL database: every server
 * promise holds across instances, whichever instance a request reaches.
 */
@PostgresTest
class ClusterTest {

    private static final int INSTANCES = 3;
    private static final String ALICE = TestClient.changesPath("alice", "course_sync");

    private final List<ReferenceServer> servers = new ArrayList<>();
    private final List<TestClient> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(8);
    private ServerDatabaseConfig.Postgres db;

    @BeforeEach
    void start() {
        db = PostgresDatabases.fresh();
        ServerConfig cfg = ServerConfig.defaults().withDatabase(db).withAudit(true);
        for (int i = 0; i < INSTANCES; i++) {
            ReferenceServer s = ReferenceServer.start(cfg);
            servers.add(s);
            clients.add(new TestClient(s));
        }
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        servers.forEach(ReferenceServer::close);
    }

    private TestClient on(int instance) {
        return clients.get(instance % INSTANCES);
    }

    private TestClient.Resp fencedPush(int instance, String key, long token, String body) throws Exception {
        return on(instance)
                .post(
                        ALICE,
                        servers.get(0).tokenFor("alice"),
                        Map.of("Idempotency-Key", key, "Fencing-Token", Long.toString(token), "Client-Id", "dev-1"),
                        body);
    }

    private String state(int instance, String key) throws Exception {
        return on(instance)
                .pushStatus("alice", "course_sync", key)
                .json()
                .get("state")
                .asText();
    }

    private void awaitState(int instance, String key, String state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!state(instance, key).equals(state)) {
            assertThat(System.nanoTime())
                    .as("key " + key + " never became " + state)
                    .isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void everyInstanceHasItsOwnIdButTheyShareUsersTokensAndTheDatabaseId() throws Exception {
        Set<String> ids = new HashSet<>();
        Set<String> cursorPrefixes = new HashSet<>();
        for (int i = 0; i < INSTANCES; i++) {
            ids.add(servers.get(i).instanceId());
            // each instance makes its own sessions; every one is valid on every instance
            assertThat(on(0).get(
                                    TestClient.changesPath("alice", "backup"),
                                    servers.get(i).tokenFor("alice"),
                                    Map.of())
                            .status())
                    .isEqualTo(200);
            assertThat(on(i).get("/v1/admin/stats", servers.get(0).adminToken(), Map.of())
                            .status())
                    .isEqualTo(200);
            String cursor = on(i).pull("alice", "course_sync", null)
                    .json()
                    .get("nextCursor")
                    .asText();
            cursorPrefixes.add(cursor.substring(0, cursor.indexOf(':')));
            JsonNode health = on(i).get("/health", null, Map.of()).json();
            assertThat(health.get("instanceId").asText())
                    .isEqualTo(servers.get(i).instanceId());
        }
        assertThat(ids).hasSize(INSTANCES);
        assertThat(cursorPrefixes).hasSize(1);
        String carol = servers.get(1).tokenFor("carol");
        servers.get(2).tokenFor("carol"); // the account exists already: another session of it
        assertThat(on(2).get(TestClient.changesPath("carol", "backup"), carol, Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(on(0).pull("alice", "course_sync", null).json().get("changes"))
                .hasSize(5);
    }

    @Test
    void theHighestFencingTokenHoldsAcrossInstances() throws Exception {
        assertThat(fencedPush(0, "f-1", 5, TestClient.oneChange("c-5", "course-1", 1, "{\"t\":5}"))
                        .status())
                .isEqualTo(200);

        TestClient.Resp stale = fencedPush(1, "f-2", 4, TestClient.oneChange("c-4", "course-2", 1, "{\"t\":4}"));
        TestClient.Resp stalePull =
                on(2).get(ALICE, servers.get(0).tokenFor("alice"), Map.of("Fencing-Token", "4", "Client-Id", "dev-1"));
        TestClient.Resp newer = fencedPush(2, "f-3", 6, TestClient.oneChange("c-6", "course-3", 1, "{\"t\":6}"));
        TestClient.Resp older = fencedPush(0, "f-4", 5, TestClient.oneChange("c-5b", "course-3", 2, "{\"t\":5}"));

        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.json().get("code").asText()).isEqualTo("stale_fencing_token");
        assertThat(stalePull.status()).isEqualTo(409);
        assertThat(newer.status()).isEqualTo(200);
        assertThat(older.status()).isEqualTo(409);
        assertThat(servers.get(1).stats().appliedIn("alice", "course_sync")).containsOnlyKeys("c-5", "c-6");
    }

    @Test
    void racingPushesOfTheSameChangesThroughDifferentInstancesApplyEachChangeExactlyOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            String body = TestClient.body(
                    TestClient.change("r" + round + "-a", "race-" + round + "-a", 0, "{\"n\":1}"),
                    TestClient.change("r" + round + "-b", "race-" + round + "-b", 0, "{\"n\":2}"));
            CountDownLatch go = new CountDownLatch(1);
            List<Future<TestClient.Resp>> pushes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int instance = i;
                // every resend under a new key: only the change ids can stop a second application
                String key = "race-" + round + "-" + i;
                pushes.add(pool.submit(() -> {
                    go.await();
                    return on(instance).push("alice", "course_sync", key, body);
                }));
            }
            go.countDown();
            Map<String, Integer> firstApplications = new HashMap<>();
            for (Future<TestClient.Resp> f : pushes) {
                TestClient.Resp r = f.get(20, TimeUnit.SECONDS);
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                for (JsonNode result : r.json().get("results")) {
                    assertThat(result.get("status").asText()).isEqualTo("applied");
                    assertThat(result.get("version").asLong()).isEqualTo(1);
                    if (!result.get("duplicate").asBoolean()) {
                        firstApplications.merge(result.get("changeId").asText(), 1, Integer::sum);
                    }
                }
            }
            assertThat(firstApplications)
                    .containsOnly(Map.entry("r" + round + "-a", 1), Map.entry("r" + round + "-b", 1));
        }
        flushStatsOfEveryInstance();
        ServerStats stats = servers.get(2).stats();
        assertThat(stats.appliedByChangeId()).containsOnlyKeys("alice|course_sync");
        assertThat(stats.appliedIn("alice", "course_sync"))
                .hasSize(10)
                .allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
        assertThat(stats.pushes()).isEqualTo(30);
    }

    @Test
    void racingPushesWithTheSameKeyThroughDifferentInstancesExecuteOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            String key = "same-" + round;
            String body = TestClient.oneChange("s-" + round, "same-" + round, 0, "{}");
            CountDownLatch go = new CountDownLatch(1);
            List<Future<TestClient.Resp>> pushes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int instance = i;
                pushes.add(pool.submit(() -> {
                    go.await();
                    return on(instance).push("alice", "course_sync", key, body);
                }));
            }
            go.countDown();
            int executed = 0;
            for (Future<TestClient.Resp> f : pushes) {
                TestClient.Resp r = f.get(20, TimeUnit.SECONDS);
                assertThat(r.status()).as(r.body()).isIn(200, 409);
                if (r.status() == 200) {
                    assertThat(r.json().get("results").get(0).get("duplicate").asBoolean())
                            .isFalse();
                    executed += r.header("Idempotent-Replayed") == null ? 1 : 0;
                }
            }
            assertThat(executed).as("round " + round).isEqualTo(1);
        }
        assertThat(servers.get(0).stats().appliedIn("alice", "course_sync"))
                .hasSize(5)
                .allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void aKeyExecutingOnOneInstanceIsInProgressOn409AndThenReplayedByTheOthers() throws Exception {
        servers.get(0).faults().setDelayAfterApply(Duration.ofMillis(1500));
        String body = TestClient.oneChange("c-slow", "course-1", 1, "{\"title\":\"slow\"}");
        CompletableFuture<TestClient.Resp> first = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return on(0).push("alice", "course_sync", "slow-key", body);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                },
                pool);
        awaitState(1, "slow-key", "in_progress");

        TestClient.Resp same = on(1).push("alice", "course_sync", "slow-key", body);
        TestClient.Resp different =
                on(2).push("alice", "course_sync", "slow-key", TestClient.oneChange("c-other", "course-2", 1, "{}"));
        String stateOnTwo = state(2, "slow-key");
        TestClient.Resp answer = first.get(10, TimeUnit.SECONDS);
        TestClient.Resp replayOnOne = on(1).push("alice", "course_sync", "slow-key", body);
        TestClient.Resp replayOnTwo = on(2).push("alice", "course_sync", "slow-key", body);
        TestClient.Resp reusedOnTwo =
                on(2).push("alice", "course_sync", "slow-key", TestClient.oneChange("c-other", "course-2", 1, "{}"));

        assertThat(same.status()).isEqualTo(409);
        assertThat(same.json().get("code").asText()).isEqualTo("idempotency_key_in_use");
        assertThat(different.status()).isEqualTo(422);
        assertThat(stateOnTwo).isEqualTo("in_progress");
        assertThat(answer.status()).isEqualTo(200);
        for (TestClient.Resp replay : List.of(replayOnOne, replayOnTwo)) {
            assertThat(replay.status()).isEqualTo(200);
            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(replay.body()).isEqualTo(answer.body());
        }
        assertThat(reusedOnTwo.status()).isEqualTo(422);
        assertThat(state(2, "slow-key")).isEqualTo("completed");
        assertThat(servers.get(2).stats().appliedByChangeId())
                .isEqualTo(Map.of("alice|course_sync", Map.of("c-slow", 1)));
    }

    @Test
    void aClaimIsLiveWhileItsInstanceLivesAndStaleOnceItIsGone() throws Exception {
        ReferenceServer extra = ReferenceServer.start(ServerConfig.defaults().withDatabase(db));
        try {
            insertClaim("orphan", extra.instanceId());
            assertThat(state(0, "orphan")).as("claim of a live instance").isEqualTo("in_progress");
            assertThat(state(1, "orphan")).isEqualTo("in_progress");
            // the live claim's request has another fingerprint: 422, where a stale claim would let it run
            assertThat(on(2).push("alice", "course_sync", "orphan", TestClient.oneChange("c-o", "course-1", 1, "{}"))
                            .status())
                    .isEqualTo(422);
        } finally {
            extra.close();
        }
        assertThat(state(1, "orphan")).as("claim of a closed instance").isEqualTo("unknown");
        TestClient.Resp resent =
                on(2).push("alice", "course_sync", "orphan", TestClient.oneChange("c-o", "course-1", 1, "{}"));
        assertThat(resent.status()).isEqualTo(200);
        assertThat(resent.json().get("results").get(0).get("duplicate").asBoolean())
                .isFalse();
    }

    @Test
    void aPullerNeverSkipsAChangeWhilePushesCommitThroughEveryInstance() throws Exception {
        TestClient puller = on(2);
        String cursor =
                puller.pull("bob", "course_sync", null).json().get("nextCursor").asText();
        int n = 30;
        List<Future<TestClient.Resp>> pushes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int instance = i;
            String body = TestClient.oneChange("p-" + i, "new-" + i, 0, "{\"n\":" + i + "}");
            pushes.add(pool.submit(() -> on(instance).push("bob", "course_sync", "p-" + instance, body)));
        }
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (seen.size() < n && System.nanoTime() < deadline) {
            JsonNode page = puller.pull("bob", "course_sync", "since=" + cursor).json();
            page.get("changes").forEach(c -> seen.add(c.get("id").asText()));
            cursor = page.get("nextCursor").asText();
        }
        for (Future<TestClient.Resp> f : pushes) {
            assertThat(f.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
        puller.pull("bob", "course_sync", "since=" + cursor)
                .json()
                .get("changes")
                .forEach(c -> seen.add(c.get("id").asText()));
        assertThat(seen).doesNotHaveDuplicates().hasSize(n);
    }

    @Test
    void theAuditHasOneRowPerRequestWhicheverInstanceServedIt() throws Exception {
        int requests = 0;
        for (int i = 0; i < 6; i++) {
            on(i).pull("alice", "message_sync", null);
            on(i + 1).push("alice", "message_sync", "a-" + i, TestClient.oneChange("a-" + i, "m-" + i, 0, "{}"));
            on(i + 2).pushStatus("alice", "message_sync", "a-" + i);
            requests += 3;
        }

        JsonNode entries = on(1).adminAudit("limit=1000").json().get("entries");
        assertThat(entries).hasSize(requests);
        Map<String, Integer> pushesByKey = new HashMap<>();
        for (JsonNode e : entries) {
            if (e.get("op").asText().equals("push")) {
                pushesByKey.merge(e.get("idempotencyKey").asText(), 1, Integer::sum);
                assertThat(e.get("applied")).hasSize(1);
            }
        }
        assertThat(pushesByKey).hasSize(6).allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void statisticsAreClusterWideIncludingRunOverlapsAndResetForEveryInstance() throws Exception {
        servers.get(0).resetStats();
        on(0).get(ALICE, servers.get(0).tokenFor("alice"), Map.of("Sync-Run-Id", "run-a"));
        servers.get(0).faults().setDelayAfterApply(Duration.ofMillis(600));
        Future<TestClient.Resp> slow = pool.submit(() -> on(0).post(
                        ALICE,
                        servers.get(0).tokenFor("alice"),
                        Map.of("Sync-Run-Id", "run-a", "Idempotency-Key", "run-a-push"),
                        TestClient.oneChange("c-run", "course-1", 1, "{}")));
        awaitState(2, "run-a-push", "in_progress");
        on(1).get(ALICE, servers.get(0).tokenFor("alice"), Map.of("Sync-Run-Id", "run-b"));
        assertThat(slow.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        on(2).push("bob", "backup", "b-1", TestClient.oneChange("c-bob", "settings", 1, "{}"));
        flushStatsOfEveryInstance();

        JsonNode viaAdmin = on(1).adminStats().json();
        ServerStats viaApi = servers.get(2).stats();

        assertThat(viaApi.runOverlaps()).isEqualTo(1);
        assertThat(viaApi.pushes()).isEqualTo(2);
        assertThat(viaApi.changesApplied()).isEqualTo(2);
        assertThat(viaApi.appliedByChangeId())
                .isEqualTo(Map.of("alice|course_sync", Map.of("c-run", 1), "bob|backup", Map.of("c-bob", 1)));
        assertThat(viaApi.requests()).isGreaterThanOrEqualTo(4);
        assertThat(viaAdmin.get("runOverlaps").asLong()).isEqualTo(1);
        assertThat(viaAdmin.get("pushes").asLong()).isEqualTo(2);

        TestClient.Resp reset =
                on(1).post("/v1/admin/reset-stats", servers.get(1).adminToken(), Map.of(), "");
        assertThat(reset.status()).isEqualTo(200);
        assertThat(servers.get(0).stats()).isEqualTo(new ServerStats(0, 0, 0, Map.of(), 0));
        assertThat(servers.get(2).stats()).isEqualTo(new ServerStats(0, 0, 0, Map.of(), 0));
    }

    /**
     * What every instance counted in memory, written to the database now rather than by its
     * housekeeping within a second (docs/reference-server.md, "Statistics").
     */
    private void flushStatsOfEveryInstance() {
        servers.forEach(ReferenceServer::flushStats);
    }

    /** A claim on alice's key as another instance would write it (its request executing). */
    private void insertClaim(String key, String instanceId) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
                java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO idempotency_claims (user_id, idem_key,"
                        + " scope, request_hash, instance_id, claim_id, claimed_at_ms) VALUES ('alice', ?, 'course_sync',"
                        + " 'h', ?, 'claim-1', 0)")) {
            ps.setString(1, key);
            ps.setString(2, instanceId);
            ps.executeUpdate();
        }
    }
}
