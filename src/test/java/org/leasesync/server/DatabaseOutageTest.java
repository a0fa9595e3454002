package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.PostgresTest;

/**
 * A PostgreSQL of this test's own is stopped under a running server instance and started again
 * on the same port and data directory: meanwhile every request that needs the database gets
 * {@code 503 unavailable} with {@code Retry-After} (never a wrong answer, never a 500), and
 * afterwards the same instance serves again by itself, its instance lock taken again. Its job
 * scheduler lives through the outage and runs its jobs again afterwards.
 */
@PostgresTest
class DatabaseOutageTest {

    private static final String ALICE = TestClient.changesPath("alice", "course_sync");

    @TempDir
    Path dir;

    private EmbeddedPostgres pg;
    private ReferenceServer server;
    private ReferenceServer other;
    private final ExecutorService pool = Executors.newFixedThreadPool(6);

    private EmbeddedPostgres startPostgres(int port) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dir.resolve("pgdata"))
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("fsync", "off")
                .start();
    }

    @AfterEach
    void stop() throws IOException {
        pool.shutdownNow();
        if (other != null) {
            other.close();
        }
        if (server != null) {
            server.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void answers503WithRetryAfterWhileTheDatabaseIsDownAndServesAgainWhenItIsBack() throws Exception {
        int port = freePort();
        pg = startPostgres(port);
        String url = pg.getJdbcUrl("postgres", "postgres");
        ServerDatabaseConfig.Postgres db = new ServerDatabaseConfig.Postgres(url, "postgres", "", 4);
        server = ReferenceServer.start(ServerConfig.defaults()
                .withDatabase(db)
                .withJobs(JobSettings.defaults()
                        .withInterval(StandardJobs.RELEASE_STALE_CLAIMS, Duration.ofMillis(300))
                        .withLeaseTtl(Duration.ofSeconds(2))));
        TestClient client = new TestClient(server);
        String token = server.tokenFor("alice");
        String admin = server.adminToken(); // a session, made in the database: before it goes away
        assertThat(client.push("alice", "course_sync", "before", TestClient.oneChange("c-before", "course-1", 1, "{}"))
                        .status())
                .isEqualTo(200);
        assertThat(client.get("/health", null, Map.of()).status()).isEqualTo(200);

        // A push that waits for the scope lock when the database goes away: its outcome is known
        // (nothing committed), and it must not be reported as applied.
        Future<TestClient.Resp> cutOff;
        try (Connection blocker = DriverManager.getConnection(url, "postgres", "")) {
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeQuery("SELECT last_seq FROM scope_state WHERE user_id = 'alice' AND scope = 'backup'"
                                + " FOR UPDATE")
                        .close();
            }
            cutOff = pool.submit(
                    () -> client.push("alice", "backup", "cut-off", TestClient.oneChange("c-cut", "cut-rec", 0, "{}")));
            awaitInProgress(client, "backup", "cut-off");
            pg.close();
        }

        // (the test client's own helpers ask the server for tokens, which needs the database)
        List<Future<TestClient.Resp>> during = List.of(
                pool.submit(() -> client.get(ALICE, token, Map.of())),
                pool.submit(() -> client.post(
                        ALICE,
                        token,
                        Map.of("Idempotency-Key", "during"),
                        TestClient.oneChange("c-during", "course-2", 1, "{}"))),
                pool.submit(() -> client.get("/v1/users/alice/scopes/course_sync/pushes/before", token, Map.of())),
                pool.submit(() -> client.get("/health", null, Map.of())),
                pool.submit(() -> client.get("/v1/admin/stats", admin, Map.of())),
                cutOff);
        for (Future<TestClient.Resp> f : during) {
            TestClient.Resp r = f.get(30, TimeUnit.SECONDS);
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isEqualTo("1");
            assertThat(r.json().get("code").asText()).isEqualTo("unavailable");
            assertThat(r.body()).doesNotContain("Exception").doesNotContain("at org.");
        }
        assertThat(during.get(3).get().json().get("instanceId").asText()).isEqualTo(server.instanceId());

        java.time.Instant restarting = java.time.Instant.now();
        pg = startPostgres(port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        TestClient.Resp health = client.get("/health", null, Map.of());
        while (health.status() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            health = client.get("/health", null, Map.of());
        }
        assertThat(health.status()).as("the instance serves again by itself").isEqualTo(200);
        assertThat(health.json().get("instanceId").asText()).isEqualTo(server.instanceId());

        JsonNode jobAfter = JobsTestSupport.awaitJob(
                client,
                StandardJobs.RELEASE_STALE_CLAIMS,
                // under load the job may not have run before the outage: no runs yet is "not yet", not an error
                j -> j.get("lastRuns").size() > 0
                        && java.time.Instant.parse(j.get("lastRuns")
                                        .get(0)
                                        .get("startedAt")
                                        .asText())
                                .isAfter(restarting)
                        && j.get("lastRuns").get(0).get("result").asText().equals("ok"));
        assertThat(jobAfter.get("lastRuns").get(0).get("trigger").asText()).isEqualTo("schedule");
        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .as("the job scheduler lived through the outage")
                .contains("sync-server-jobs");

        TestClient.Resp after = awaitOk(() ->
                client.push("alice", "course_sync", "after", TestClient.oneChange("c-after", "course-3", 1, "{}")));
        assertThat(after.json().get("results").get(0).get("status").asText()).isEqualTo("applied");
        JsonNode records = client.pull("alice", "course_sync", null).json().get("changes");
        assertThat(records.toString()).contains("course-1");
        assertThat(client.pushStatus("alice", "backup", "cut-off")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
        JsonNode backup = client.get(TestClient.changesPath("alice", "backup"), token, Map.of())
                .json();
        assertThat(backup.toString()).doesNotContain("cut-rec");

        // The instance holds its lock again: another instance sees its claims as live.
        other = ReferenceServer.start(ServerConfig.defaults().withDatabase(db));
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                PreparedStatement ps = c.prepareStatement("INSERT INTO idempotency_claims (user_id, idem_key, scope,"
                        + " request_hash, instance_id, claim_id, claimed_at_ms) VALUES ('alice', 'held', 'course_sync',"
                        + " 'h', ?, 'claim-1', 0)")) {
            ps.setString(1, server.instanceId());
            ps.executeUpdate();
        }
        TestClient otherClient = new TestClient(other);
        long lockDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String state = otherClient
                .pushStatus("alice", "course_sync", "held")
                .json()
                .get("state")
                .asText();
        while (!state.equals("in_progress") && System.nanoTime() < lockDeadline) {
            Thread.sleep(100);
            state = otherClient
                    .pushStatus("alice", "course_sync", "held")
                    .json()
                    .get("state")
                    .asText();
        }
        assertThat(state).isEqualTo("in_progress");
    }

    /** The first 200 of {@code call} within 10 s (a pooled connection from before may fail once). */
    private static TestClient.Resp awaitOk(java.util.concurrent.Callable<TestClient.Resp> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        TestClient.Resp r = call.call();
        while (r.status() != 200 && System.nanoTime() < deadline) {
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            Thread.sleep(100);
            r = call.call();
        }
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r;
    }

    private static void awaitInProgress(TestClient client, String scope, String key) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!client.pushStatus("alice", scope, key)
                .json()
                .get("state")
                .asText()
                .equals("in_progress")) {
            assertThat(System.nanoTime())
                    .as("push " + key + " never became in_progress")
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
