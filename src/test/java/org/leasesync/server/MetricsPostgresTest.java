package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * {@link MetricsTest} against a real PostgreSQL, and a database lost under a running instance:
 * its 503 answers are counted as {@code unavailable{reason="database"}} while {@code /metrics}
 * itself keeps answering.
 */
@PostgresTest
class MetricsPostgresTest extends MetricsTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }

    @Override
    protected int expectedPoolSize() {
        return PostgresDatabases.POOL_SIZE;
    }

    @Test
    void answersWhileTheDatabaseIsLostAndCountsTheUnavailableAnswers() throws Exception {
        Postgres.Db pg = Postgres.newDatabase();
        String role = "metrics_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement admin = c.createStatement()) {
            admin.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'pw'");
            admin.execute("ALTER DATABASE " + pg.name() + " OWNER TO " + role);
            admin.execute("GRANT ALL ON SCHEMA public TO " + role);
            String url = "jdbc:postgresql://localhost:" + pg.port() + "/" + pg.name();
            ServerDatabaseConfig.Postgres db = new ServerDatabaseConfig.Postgres(url, role, "pw", 2);
            try (ReferenceServer lost =
                    ReferenceServer.start(ServerConfig.defaults().withDatabase(db))) {
                TestClient client = new TestClient(lost);
                String token = lost.tokenFor("alice");
                assertThat(client.get(TestClient.changesPath("alice", "course_sync"), token, Map.of())
                                .status())
                        .isEqualTo(200);

                admin.execute("ALTER ROLE " + role + " NOLOGIN");
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
                TestClient.Resp down = client.get(TestClient.changesPath("alice", "course_sync"), token, Map.of());
                TestClient.Resp scrape = client.get("/metrics", null, Map.of());

                assertThat(down.status()).as(down.body()).isEqualTo(503);
                assertThat(scrape.status()).as("/metrics needs no database").isEqualTo(200);
                Exposition m = new Exposition(scrape.body());
                assertThat(m.value("leasesync_server_unavailable_total", "reason", "database"))
                        .isEqualTo(1);
                assertThat(m.value("leasesync_server_requests_seconds_count", "endpoint", "pull", "status", "503"))
                        .isEqualTo(1);
                assertThat(m.find("hikaricp_connections_active", "pool", "sync-server-db"))
                        .hasSize(1);

                admin.execute("ALTER ROLE " + role + " LOGIN");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (client.get(TestClient.changesPath("alice", "course_sync"), token, Map.of())
                                .status()
                        != 200) {
                    assertThat(System.nanoTime())
                            .as("the instance never served again")
                            .isLessThan(deadline);
                    Thread.sleep(50);
                }
            }
        }
    }
}
