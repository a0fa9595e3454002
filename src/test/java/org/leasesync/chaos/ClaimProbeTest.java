package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** The probe that finds a push or a server job run in flight, on the server's real tables in PostgreSQL. */
@PostgresTest
class ClaimProbeTest {

    @Test
    void findsTheInstanceWhoseJobRunIsStillRunningAndNoOtherOne() throws Exception {
        Postgres.Db pg = Postgres.newDatabase();
        Flyway.configure()
                .dataSource(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)
                .locations(Dialect.POSTGRESQL.migrations())
                .load()
                .migrate();
        ClaimProbe probe = new ClaimProbe(new ClusterDatabase(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD));
        execute(
                pg,
                "INSERT INTO job_runs (job_name, slot, run_trigger, instance_id, owner_id, epoch, started_at_ms, ended_at_ms,"
                        + " result, processed) VALUES ('purge-tombstones', 1, 'schedule', 'ls-s1/1/a', 'o', 1, 10, 20, 'ok', 0),"
                        + " ('purge-tombstones', 2, 'schedule', 'ls-s2/2/b', 'o', 2, 30, NULL, 'running', 2)");

        assertThat(probe.runningJobs(List.of("ls-s1/1/a", "ls-s2/2/b", "ls-s3/3/c")))
                .containsExactly("ls-s2/2/b");
        assertThat(probe.runningJobs(List.of("ls-s1/1/a", "ls-s3/3/c"))).isEmpty();
        assertThat(probe.awaitClaim(List.of("ls-s2/2/b"), Duration.ZERO))
                .as("no idempotency claim")
                .isEmpty();
    }

    @Test
    void anUnreachableDatabaseIsNoHintRatherThanAnError() throws Exception {
        ClaimProbe probe = new ClaimProbe(new ClusterDatabase("jdbc:postgresql://127.0.0.1:1/none", "nobody", ""));
        assertThat(probe.runningJobs(List.of("ls-s1/1/a"))).isEmpty();
        assertThat(probe.awaitClaim(List.of("ls-s1/1/a"), Duration.ofMillis(100)))
                .isEmpty();
    }

    private static void execute(Postgres.Db pg, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
