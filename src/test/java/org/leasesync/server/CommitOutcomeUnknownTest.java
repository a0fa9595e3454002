package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.PostgresTest;

/**
 * A push whose connection breaks while it commits (real PostgreSQL: a deferred trigger makes the
 * commit slow, the test terminates the session meanwhile) is answered {@code 503} saying that its
 * outcome is unknown — never "applied", never a plain failure — leaves no audit row of its own,
 * and can be resent with the same key.
 */
@PostgresTest
class CommitOutcomeUnknownTest {

    private ReferenceServer server;
    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aCommitCutOffByALostConnectionIsReportedAsUnknownAndTheKeyCanBeResent() throws Exception {
        ServerDatabaseConfig.Postgres db = PostgresDatabases.fresh();
        server = ReferenceServer.start(ServerConfig.defaults().withDatabase(db).withAudit(true));
        TestClient client = new TestClient(server);
        String token = server.tokenFor("alice");
        String body = TestClient.oneChange("c-unknown", "course-1", 1, "{\"title\":\"cut\"}");
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
                Statement s = c.createStatement()) {
            s.execute("CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS"
                    + " $$ BEGIN PERFORM pg_sleep(3); RETURN NULL; END $$");
            s.execute("CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON idempotency_keys"
                    + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()");

            Future<TestClient.Resp> push = pool.submit(() -> client.post(
                    TestClient.changesPath("alice", "course_sync"),
                    token,
                    java.util.Map.of("Idempotency-Key", "cut-key"),
                    body));
            terminateTheSessionCommitting(s, "cut-key");
            TestClient.Resp r = push.get(20, TimeUnit.SECONDS);

            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.header("Retry-After")).isEqualTo("1");
            assertThat(r.json().get("code").asText()).isEqualTo("unavailable");
            assertThat(r.json().get("message").asText()).contains("may or may not have been applied");
            s.execute("DROP TRIGGER slow_commit ON idempotency_keys");
        }

        assertThat(client.pushStatus("alice", "course_sync", "cut-key")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
        TestClient.Resp resent = client.push("alice", "course_sync", "cut-key", body);
        assertThat(resent.status()).isEqualTo(200);
        assertThat(resent.header("Idempotent-Replayed")).isNull();
        assertThat(resent.json().get("results").get(0).get("duplicate").asBoolean())
                .isFalse();
        int pushRows = 0;
        for (JsonNode e : client.adminAudit(null).json().get("entries")) {
            if (e.get("op").asText().equals("push")) {
                pushRows++;
                assertThat(e.get("status").asInt()).as("only the resend's row").isEqualTo(200);
            }
        }
        assertThat(pushRows).isEqualTo(1);
        assertThat(server.stats().appliedByChangeId())
                .isEqualTo(java.util.Map.of("alice|course_sync", java.util.Map.of("c-unknown", 1)));
        Exposition metrics =
                new Exposition(client.get("/metrics", null, java.util.Map.of()).body());
        assertThat(metrics.value("leasesync_server_unavailable_total", "reason", "commit_outcome_unknown"))
                .isEqualTo(1);
        assertThat(metrics.value("leasesync_server_unavailable_total", "reason", "database"))
                .isZero();
        assertThat(metrics.value("leasesync_server_pushes_total"))
                .as("only the resend committed")
                .isEqualTo(1);
    }

    /** Waits for the server's session to be inside the slow commit, then ends that session. */
    private static void terminateTheSessionCommitting(Statement s, String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (ResultSet rs = s.executeQuery("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'"
                    + " AND query = 'COMMIT'")) {
                if (rs.next() && rs.getBoolean(1)) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no session of the server was committing push " + key);
    }
}
