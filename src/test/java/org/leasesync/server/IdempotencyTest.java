package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.faults.FaultSpec;
import org.leasesync.testing.MutableClock;

class IdempotencyTest {

    private ReferenceServer server;
    private TestClient client;
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    /** The database of the test's server: H2 in memory here; subclasses choose another. */
    protected ServerConfig onDatabase(ServerConfig cfg) {
        return cfg;
    }

    private void start(ServerConfig cfg) {
        server = ReferenceServer.start(onDatabase(cfg));
        client = new TestClient(server);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    /** Waits (bounded) until the push with this key is executing on the server. */
    private void awaitInProgress(String user, String scope, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (client.pushStatus(user, scope, key).json().get("state").asText().equals("in_progress")) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("push " + key + " never became in_progress");
    }

    @Test
    void sameKeyAndBodyReplaysTheIdenticalResponseAndAppliesOnce() throws Exception {
        start(ServerConfig.defaults());
        String changeId = TestClient.newId();
        String body = TestClient.oneChange(changeId, "course-1", 1, "{\"title\":\"Linear Algebra\",\"progress\":0.5}");

        TestClient.Resp first = client.push("alice", "course_sync", "key-1", body);
        TestClient.Resp second = client.push("alice", "course_sync", "key-1", body);

        assertThat(first.status()).isEqualTo(200);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(first.header("Idempotent-Replayed")).isNull();
        assertThat(second.json().get("results").get(0).get("duplicate").asBoolean())
                .isFalse();
        assertThat(server.stats().appliedByChangeId())
                .isEqualTo(java.util.Map.of("alice|course_sync", java.util.Map.of(changeId, 1)));
        JsonNode adminStats = client.adminStats().json();
        assertThat(adminStats
                        .get("appliedByChangeId")
                        .get("alice|course_sync")
                        .get(changeId)
                        .asInt())
                .isEqualTo(1);
        assertThat(adminStats.get("changesApplied").asInt()).isEqualTo(1);
    }

    @Test
    void reorderedMembersAndWhitespaceAreTheSameRequest() throws Exception {
        start(ServerConfig.defaults());
        String a =
                "{\"changes\":[{\"changeId\":\"c1\",\"id\":\"course-1\",\"baseVersion\":1,\"payload\":{\"a\":1,\"b\":2}}]}";
        String b = "{ \"changes\" : [ { \"payload\" : { \"b\" : 2, \"a\" : 1 }, \"baseVersion\" : 1,"
                + " \"id\" : \"course-1\", \"changeId\" : \"c1\" } ] }";

        TestClient.Resp first = client.push("alice", "course_sync", "k", a);
        TestClient.Resp second = client.push("alice", "course_sync", "k", b);

        assertThat(second.status()).isEqualTo(200);
        assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(second.body()).isEqualTo(first.body());
    }

    @Test
    void sameKeyWithADifferentBodyIs422AndAppliesNothing() throws Exception {
        start(ServerConfig.defaults());
        client.push("alice", "course_sync", "key-2", TestClient.oneChange("c1", "course-1", 1, "{\"title\":\"A\"}"));

        TestClient.Resp r = client.push(
                "alice", "course_sync", "key-2", TestClient.oneChange("c2", "course-2", 1, "{\"title\":\"B\"}"));

        assertThat(r.status()).isEqualTo(422);
        assertThat(r.json().get("code").asText()).isEqualTo("idempotency_key_reused");
        assertThat(server.stats().appliedIn("alice", "course_sync")).doesNotContainKey("c2");
    }

    @Test
    void sameKeyOnAnotherScopeIs422() throws Exception {
        start(ServerConfig.defaults());
        String body = TestClient.oneChange("c1", "x", 0, "{}");
        client.push("alice", "course_sync", "key-3", body);

        TestClient.Resp r = client.push("alice", "message_sync", "key-3", body);

        assertThat(r.status()).isEqualTo(422);
    }

    @Test
    void keysAreScopedPerUser() throws Exception {
        start(ServerConfig.defaults());
        client.push("alice", "course_sync", "shared-key", TestClient.oneChange("ca", "course-1", 1, "{}"));

        TestClient.Resp bob =
                client.push("bob", "course_sync", "shared-key", TestClient.oneChange("cb", "course-1", 1, "{}"));

        assertThat(bob.status()).isEqualTo(200);
        assertThat(bob.header("Idempotent-Replayed")).isNull();
        assertThat(bob.json().get("results").get(0).get("status").asText()).isEqualTo("applied");
        assertThat(client.pushStatus("bob", "course_sync", "shared-key")
                        .json()
                        .get("response")
                        .get("results")
                        .get(0)
                        .get("changeId")
                        .asText())
                .isEqualTo("cb");
    }

    @Test
    void sameKeyWhileTheFirstIsStillExecutingIs409ThenItCompletes() throws Exception {
        start(ServerConfig.defaults().withFaults(java.util.List.of(FaultSpec.parse("delay-after-apply=1s"))));
        String body = TestClient.oneChange("c-slow", "course-1", 1, "{\"title\":\"slow\"}");
        Future<TestClient.Resp> first = pool.submit(() -> client.push("alice", "course_sync", "slow-key", body));
        awaitInProgress("alice", "course_sync", "slow-key");

        TestClient.Resp second = client.push("alice", "course_sync", "slow-key", body);
        TestClient.Resp different =
                client.push("alice", "course_sync", "slow-key", TestClient.oneChange("other", "course-2", 1, "{}"));

        assertThat(second.status()).isEqualTo(409);
        assertThat(second.json().get("code").asText()).isEqualTo("idempotency_key_in_use");
        assertThat(different.status()).isEqualTo(422);
        assertThat(first.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
        TestClient.Resp after = client.push("alice", "course_sync", "slow-key", body);
        assertThat(after.status()).isEqualTo(200);
        assertThat(after.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry("c-slow", 1);
    }

    @Test
    void pushStatusSaysUnknownThenInProgressThenCompleted() throws Exception {
        start(ServerConfig.defaults());
        String body = TestClient.oneChange("c-st", "course-1", 1, "{\"title\":\"status\"}");
        JsonNode unknown = client.pushStatus("alice", "course_sync", "st-key").json();
        assertThat(unknown.get("state").asText()).isEqualTo("unknown");
        assertThat(unknown.get("idempotencyKey").asText()).isEqualTo("st-key");

        server.faults().setDelayAfterApply(Duration.ofMillis(800));
        CompletableFuture<TestClient.Resp> push = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return client.push("alice", "course_sync", "st-key", body);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                },
                pool);
        awaitInProgress("alice", "course_sync", "st-key");
        TestClient.Resp pushed = push.get(5, TimeUnit.SECONDS);

        JsonNode completed = client.pushStatus("alice", "course_sync", "st-key").json();
        assertThat(completed.get("state").asText()).isEqualTo("completed");
        assertThat(completed.get("statusCode").asInt()).isEqualTo(200);
        assertThat(completed.get("response")).isEqualTo(pushed.json());
        assertThat(Instant.parse(completed.get("expiresAt").asText()))
                .isEqualTo(Instant.parse(completed.get("completedAt").asText()).plus(Duration.ofHours(24)));
        assertThat(client.pushStatus("alice", "message_sync", "st-key")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
    }

    @Test
    void keysExpireAfterTheRetentionAndAResendThenDoesNotApplyTwice() throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
        start(ServerConfig.defaults().withClock(clock).withKeyRetention(Duration.ofHours(2)));
        String body = TestClient.oneChange("c-exp", "course-1", 1, "{\"title\":\"expiring\"}");
        TestClient.Resp first = client.push("alice", "course_sync", "exp-key", body);

        clock.advance(Duration.ofMinutes(119));
        assertThat(client.pushStatus("alice", "course_sync", "exp-key")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("completed");
        clock.advance(Duration.ofMinutes(1));
        assertThat(client.pushStatus("alice", "course_sync", "exp-key")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");

        TestClient.Resp resend = client.push("alice", "course_sync", "exp-key", body);
        assertThat(resend.header("Idempotent-Replayed")).isNull();
        JsonNode result = resend.json().get("results").get(0);
        assertThat(result.get("status").asText()).isEqualTo("applied");
        assertThat(result.get("duplicate").asBoolean()).isTrue();
        assertThat(result.get("version").asLong())
                .isEqualTo(first.json().get("results").get(0).get("version").asLong());
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry("c-exp", 1);
    }

    @Test
    void keysWithSlashesWorkInTheStatusPathWhenPercentEncoded() throws Exception {
        start(ServerConfig.defaults());
        client.push("alice", "course_sync", "a/b c+d", TestClient.oneChange("c-enc", "course-1", 1, "{}"));

        JsonNode status =
                client.pushStatus("alice", "course_sync", "a%2Fb%20c+d").json();

        assertThat(status.get("state").asText()).isEqualTo("completed");
        assertThat(status.get("idempotencyKey").asText()).isEqualTo("a/b c+d");
    }

    @Test
    void anOverlongOrNonAsciiKeyIs400() throws Exception {
        start(ServerConfig.defaults());
        TestClient.Resp r =
                client.push("alice", "course_sync", "k".repeat(256), TestClient.oneChange("c", "x", 0, "{}"));

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("message").asText()).contains("Idempotency-Key");
    }
}
