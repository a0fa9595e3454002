package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} over real HTTP: the exact counts after a scripted sequence of requests,
 * the request histogram, the pool's and the JVM's meters, no token and no audit row for a scrape,
 * and a number of series that does not grow with the number of users.
 */
class MetricsTest extends ServerTestBase {

    private static final String ALICE = TestClient.changesPath("alice", "course_sync");
    private static final List<String> BUCKETS = List.of(
            "0.001", "0.002", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0",
            "+Inf");

    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private int pushStatusCalls;

    @Override
    protected ServerConfig config() {
        // no scheduled job runs: their series would appear between two scrapes
        return super.config()
                .withAudit(true)
                .withJobs(org.leasesync.server.jobs.JobSettings.defaults().withScheduled(false));
    }

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    /** Scrapes without any token. */
    protected Exposition scrape() throws Exception {
        TestClient.Resp r = client.get("/metrics", null, Map.of());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
        return new Exposition(r.body());
    }

    private TestClient.Resp fenced(String method, String key, long token, String body) throws Exception {
        Map<String, String> h = key == null
                ? Map.of("Fencing-Token", Long.toString(token), "Client-Id", "dev-1")
                : Map.of("Fencing-Token", Long.toString(token), "Client-Id", "dev-1", "Idempotency-Key", key);
        String alice = server.tokenFor("alice");
        return method.equals("GET") ? client.get(ALICE, alice, h) : client.post(ALICE, alice, h, body);
    }

    private String state(String key) throws Exception {
        pushStatusCalls++;
        return client.pushStatus("alice", "course_sync", key)
                .json()
                .get("state")
                .asText();
    }

    @Test
    void countsTheOutcomesOfAScriptedSequenceExactly() throws Exception {
        String two =
                TestClient.body(TestClient.change("m-1", "new-1", 0, "{}"), TestClient.change("m-2", "new-2", 0, "{}"));
        assertThat(client.pull("alice", "course_sync", null).status()).isEqualTo(200);
        assertThat(client.push("alice", "course_sync", "k-1", two).status()).isEqualTo(200);
        TestClient.Resp replay = client.push("alice", "course_sync", "k-1", two);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(client.push("alice", "course_sync", "k-1", TestClient.oneChange("m-9", "x", 0, "{}"))
                        .status())
                .isEqualTo(422);
        assertThat(fenced("POST", "k-f5", 5, TestClient.oneChange("m-3", "new-3", 0, "{}"))
                        .status())
                .isEqualTo(200);
        assertThat(fenced("POST", "k-f3", 3, TestClient.oneChange("m-4", "new-4", 0, "{}"))
                        .status())
                .isEqualTo(409);
        assertThat(fenced("GET", null, 4, null).status()).isEqualTo(409);
        String dupAndConflict = TestClient.body(
                TestClient.change("m-1", "new-1", 0, "{}"), TestClient.change("m-5", "course-1", 0, "{}"));
        assertThat(client.push("alice", "course_sync", "k-2", dupAndConflict).status())
                .isEqualTo(200);
        server.faults().setDelayAfterApply(Duration.ofMillis(1500));
        String slowBody = TestClient.oneChange("m-6", "new-6", 0, "{}");
        Future<TestClient.Resp> slow = pool.submit(() -> client.push("alice", "course_sync", "k-3", slowBody));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!state("k-3").equals("in_progress")) {
            assertThat(System.nanoTime()).as("k-3 never in progress").isLessThan(deadline);
            Thread.sleep(5);
        }
        assertThat(client.push("alice", "course_sync", "k-3", slowBody).status())
                .isEqualTo(409);
        assertThat(slow.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        server.faults().setDelayAfterApply(Duration.ZERO);
        assertThat(client.get("/health", null, Map.of()).status()).isEqualTo(200);
        assertThat(client.adminStats().status()).isEqualTo(200);
        assertThat(client.get("/v1/nowhere", null, Map.of()).status()).isEqualTo(404);

        Exposition m = scrape();

        assertThat(m.value("leasesync_server_pushes_total")).isEqualTo(4);
        assertThat(m.value("leasesync_server_changes_total", "result", "applied"))
                .isEqualTo(4);
        assertThat(m.value("leasesync_server_changes_total", "result", "duplicate"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_changes_total", "result", "conflict"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_idempotency_total", "outcome", "replayed"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_idempotency_total", "outcome", "in_use"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_idempotency_total", "outcome", "reused"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_fencing_refusals_total", "op", "push"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_fencing_refusals_total", "op", "pull"))
                .isEqualTo(1);
        assertThat(m.value("leasesync_server_unavailable_total", "reason", "database"))
                .isZero();
        assertThat(m.value("leasesync_server_unavailable_total", "reason", "commit_outcome_unknown"))
                .isZero();
        String count = "leasesync_server_requests_seconds_count";
        assertThat(m.value(count, "endpoint", "pull", "status", "200")).isEqualTo(1);
        assertThat(m.value(count, "endpoint", "pull", "status", "409")).isEqualTo(1);
        assertThat(m.value(count, "endpoint", "push", "status", "200")).isEqualTo(5);
        assertThat(m.value(count, "endpoint", "push", "status", "409")).isEqualTo(2);
        assertThat(m.value(count, "endpoint", "push", "status", "422")).isEqualTo(1);
        assertThat(m.value(count, "endpoint", "push_status", "status", "200")).isEqualTo(pushStatusCalls);
        assertThat(m.value(count, "endpoint", "health", "status", "200")).isEqualTo(1);
        assertThat(m.value(count, "endpoint", "admin", "status", "200")).isEqualTo(1);
        assertThat(m.value(count, "endpoint", "other", "status", "404")).isEqualTo(1);
        assertThat(m.find(count)).as("no other series").hasSize(9);
        assertThat(m.value("leasesync_server_instance", "instance_id", server.instanceId()))
                .isEqualTo(1);
    }

    @Test
    void theRequestTimerIsAHistogramWithBucketsFromOneMillisecondToTenSeconds() throws Exception {
        for (int i = 0; i < 3; i++) {
            client.pull("alice", "course_sync", null);
        }

        Exposition m = scrape();

        List<Exposition.Sample> buckets = m.find("leasesync_server_requests_seconds_bucket", "endpoint", "pull");
        assertThat(buckets).extracting(s -> s.labels().get("le")).containsExactlyElementsOf(BUCKETS);
        assertThat(buckets.get(buckets.size() - 1).value()).isEqualTo(3);
        for (int i = 1; i < buckets.size(); i++) {
            assertThat(buckets.get(i).value())
                    .as("cumulative")
                    .isGreaterThanOrEqualTo(buckets.get(i - 1).value());
        }
        assertThat(m.value("leasesync_server_requests_seconds_sum", "endpoint", "pull"))
                .isPositive();
        assertThat(m.value("leasesync_server_requests_seconds_max", "endpoint", "pull"))
                .isPositive();
        assertThat(m.text()).contains("# TYPE leasesync_server_requests_seconds histogram");
    }

    @Test
    void thePoolAndTheJvmHaveTheirMeters() throws Exception {
        Exposition m = scrape();

        for (String pool : List.of(
                "hikaricp_connections_active",
                "hikaricp_connections_idle",
                "hikaricp_connections_pending",
                "hikaricp_connections_max",
                "hikaricp_connections_timeout_total")) {
            assertThat(m.find(pool, "pool", "sync-server-db")).as(pool).hasSize(1);
        }
        assertThat(m.value("hikaricp_connections_max", "pool", "sync-server-db"))
                .isEqualTo(expectedPoolSize());
        assertThat(m.value("hikaricp_connections_timeout_total", "pool", "sync-server-db"))
                .isZero();
        assertThat(m.find("jvm_memory_used_bytes")).isNotEmpty();
        assertThat(m.value("jvm_threads_live_threads")).isPositive();
    }

    /** The pool size of {@link #config()}'s database. */
    protected int expectedPoolSize() {
        return 8;
    }

    @Test
    void aScrapeNeedsNoTokenIsNotAuditedAndIsNotCounted() throws Exception {
        client.pull("alice", "course_sync", null);
        long requests = server.stats().requests();

        scrape();
        TestClient.Resp withUserToken = client.get("/metrics", server.tokenFor("alice"), Map.of());
        TestClient.Resp withBadToken = client.get("/metrics", "not-a-token", Map.of());
        Exposition m = scrape();

        assertThat(withUserToken.status()).isEqualTo(200);
        assertThat(withBadToken.status()).isEqualTo(200);
        assertThat(m.find("leasesync_server_requests_seconds_count", "endpoint", "metrics"))
                .isEmpty();
        assertThat(client.adminAudit(null).json().get("entries")).hasSize(1);
        assertThat(server.stats().requests()).isEqualTo(requests);
        TestClient.Resp post = client.post("/metrics", null, Map.of(), "");
        assertThat(post.status()).isEqualTo(405);
        assertThat(scrape().value("leasesync_server_requests_seconds_count", "endpoint", "metrics", "status", "405"))
                .as("a refused scrape is counted")
                .isEqualTo(1);
    }

    @Test
    void theNumberOfSeriesDoesNotGrowWithTheNumberOfUsers() throws Exception {
        requestsOf("alice", 0);
        requestsOf("bob", 0);
        Set<String> before = scrape().series("leasesync_");

        for (int i = 0; i < 40; i++) {
            requestsOf("user-" + i, i);
        }
        Set<String> after = scrape().series("leasesync_");

        assertThat(after).isEqualTo(before);
        assertThat(scrape().value("leasesync_server_requests_seconds_count", "endpoint", "pull", "status", "200"))
                .isEqualTo(42);
    }

    /** A pull, a push and a push-status query of {@code user}, each with its own key and run id. */
    private void requestsOf(String user, int n) throws Exception {
        assertThat(client.get(
                                TestClient.changesPath(user, "backup"),
                                server.tokenFor(user),
                                Map.of("Sync-Run-Id", "run-" + user))
                        .status())
                .isEqualTo(200);
        assertThat(client.push(
                                user,
                                "backup",
                                "key-" + user + "-" + n,
                                TestClient.oneChange("c-" + user, "rec-" + user, 0, "{}"))
                        .status())
                .isEqualTo(200);
        assertThat(client.pushStatus(user, "backup", "key-" + user + "-" + n).status())
                .isEqualTo(200);
    }
}
