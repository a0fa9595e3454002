package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RunOverlapTest {

    private ReferenceServer server;
    private TestClient client;
    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @BeforeEach
    void start() {
        server = ReferenceServer.start(ServerConfig.defaults());
        client = new TestClient(server);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        server.close();
    }

    private TestClient.Resp pull(String user, String scope, String runId) throws Exception {
        return client.get(TestClient.changesPath(user, scope), server.tokenFor(user), Map.of("Sync-Run-Id", runId));
    }

    private TestClient.Resp push(String user, String scope, String runId, String key, String body) throws Exception {
        return client.post(
                TestClient.changesPath(user, scope),
                server.tokenFor(user),
                Map.of("Sync-Run-Id", runId, "Idempotency-Key", key),
                body);
    }

    private void awaitInProgress(String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!client.pushStatus("alice", "course_sync", key)
                .json()
                .get("state")
                .asText()
                .equals("in_progress")) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("push never became in_progress");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void sequentialRunsOfOneTaskKeyDoNotOverlap() throws Exception {
        pull("alice", "course_sync", "run-1");
        push("alice", "course_sync", "run-1", "k1", TestClient.oneChange("c1", "course-1", 1, "{}"));
        pull("alice", "course_sync", "run-2");
        pull("alice", "course_sync", "run-3");

        assertThat(server.stats().runOverlaps()).isZero();
    }

    @Test
    void aRunStartingWhileAnotherIsStillRunningIsCountedOnce() throws Exception {
        pull("alice", "course_sync", "run-a");
        server.faults().setDelayAfterApply(Duration.ofMillis(400));
        Future<TestClient.Resp> slowPush = pool.submit(
                () -> push("alice", "course_sync", "run-a", "slow", TestClient.oneChange("c1", "course-1", 1, "{}")));
        awaitInProgress("slow");

        pull("alice", "course_sync", "run-b");
        pull("alice", "message_sync", "run-c");
        pull("bob", "course_sync", "run-d");
        assertThat(slowPush.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);

        assertThat(server.stats().runOverlaps()).isEqualTo(1);
        assertThat(client.adminStats().json().get("runOverlaps").asInt()).isEqualTo(1);
    }

    @Test
    void invalidRunIdIs400() throws Exception {
        TestClient.Resp r = pull("alice", "course_sync", "x".repeat(256));

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("message").asText()).contains("Sync-Run-Id");
    }
}
