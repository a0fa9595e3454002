package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;

/**
 * The server's jobs across three real {@code serve --db} processes on one PostgreSQL:
 * <ul>
 *   <li>instance A is killed ({@code kill -9}) in the middle of a {@code prune-audit} run; B or C
 *       takes the job over and resumes it from A's checkpoint — with A's cutoff, not a new one — and
 *       records it as a takeover; meanwhile a run request on B joined A;</li>
 *   <li>an idempotency-key claim A left is kept while A lives and deleted by
 *       {@code release-stale-claims} once it is dead;</li>
 *   <li>B and C, scheduling the other jobs every second, run each occurrence on exactly one of them.</li>
 * </ul>
 */
@ProcessTest
@PostgresTest
class JobsClusterProcessTest {

    private static final String[] SCHEDULED = {
        StandardJobs.EXPIRE_IDEMPOTENCY_KEYS, StandardJobs.PURGE_TOMBSTONES, StandardJobs.RELEASE_STALE_CLAIMS
    };

    @TempDir
    Path dir;

    private final List<ServeProcess> started = new ArrayList<>();
    private Postgres.Db db;

    @AfterEach
    void stop() throws Exception {
        for (ServeProcess p : started) {
            p.process.destroyForcibly();
            p.process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
    }

    @Test
    void aKilledInstancesJobIsResumedElsewhereAndEachOccurrenceRunsOnce() throws Exception {
        db = Postgres.newDatabase();
        Flyway.configure()
                .dataSource(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)
                .locations(Dialect.POSTGRESQL.migrations())
                .load()
                .migrate();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 10; i++) {
            update(
                    "INSERT INTO request_audit (at_ms, path_user, scope, op, status, applied, duplicates, conflicts)"
                            + " VALUES (?, 'alice', 'backup', 'pull', 200, '', '', '')",
                    now - Duration.ofDays(8).toMillis());
        }

        // A: 7 days of audit retention; its prune-audit run pauses after its first batch of 3.
        ServeProcess a = ServeProcess.start(
                dir.resolve("a.log"),
                db.env(),
                started,
                "--db",
                db.jdbcUrl(),
                "--db-pool-size",
                "3",
                "--job-lease-ttl",
                "2s",
                "--job-batch-size",
                "3",
                "--audit-retention",
                "7d",
                "--job-pause",
                StandardJobs.PRUNE_AUDIT);
        Map<String, Object> paused = awaitRow("SELECT c.run_id, c.position_json, r.instance_id FROM job_checkpoints c"
                + " JOIN job_runs r ON r.run_id = c.run_id WHERE c.job_name = 'prune-audit' AND c.processed = 3");
        long runA = (Long) paused.get("run_id");
        assertThat(paused.get("instance_id")).isEqualTo(a.instance);
        long cutoffA =
                Long.parseLong(((String) paused.get("position_json")).replaceAll(".*\"cutoffMs\":(\\d+).*", "$1"));
        // Between A's cutoff and any cutoff of B or C (1 hour of retention): a restarted run would delete it.
        update(
                "INSERT INTO request_audit (at_ms, path_user, scope, op, status, applied, duplicates, conflicts)"
                        + " VALUES (?, 'alice', 'backup', 'pull', 200, '', '', '')",
                cutoffA + 1);
        update(
                "INSERT INTO idempotency_claims (user_id, idem_key, scope, request_hash, instance_id, claim_id, claimed_at_ms)"
                        + " VALUES ('alice', 'left-by-a', 'backup', 'h', ?, 'claim-a', ?)",
                a.instance,
                now);

        // B and C: prune-audit not scheduled (they only resume it), the other jobs every second.
        List<String> bc = new ArrayList<>(List.of(
                "--db",
                db.jdbcUrl(),
                "--db-pool-size",
                "3",
                "--job-lease-ttl",
                "2s",
                "--job-batch-size",
                "3",
                "--audit-retention",
                "1h",
                "--job-interval",
                StandardJobs.PRUNE_AUDIT + "=off"));
        for (String job : SCHEDULED) {
            bc.addAll(List.of("--job-interval", job + "=1s"));
        }
        ServeProcess b = ServeProcess.start(dir.resolve("b.log"), db.env(), started, bc.toArray(String[]::new));
        ServeProcess c = ServeProcess.start(dir.resolve("c.log"), db.env(), started, bc.toArray(String[]::new));

        Map.Entry<Integer, JsonNode> joined = b.runJob(StandardJobs.PRUNE_AUDIT);
        assertThat(joined.getKey()).as("%s", joined.getValue()).isEqualTo(200);
        assertThat(joined.getValue().get("outcome").asText()).isEqualTo("joined");
        assertThat(joined.getValue().get("holder").get("instanceId").asText()).isEqualTo(a.instance);
        assertThat(joined.getValue().get("run").get("runId").asLong()).isEqualTo(runA);

        long claimRunsBefore = count("SELECT COUNT(*) FROM job_runs WHERE job_name = 'release-stale-claims'"
                + " AND result = 'ok' AND instance_id <> '" + a.instance + "'");
        awaitTrue(() -> count("SELECT COUNT(*) FROM job_runs WHERE job_name = 'release-stale-claims' AND result = 'ok'"
                        + " AND instance_id <> '" + a.instance + "'")
                >= claimRunsBefore + 2);
        assertThat(count("SELECT COUNT(*) FROM idempotency_claims WHERE idem_key = 'left-by-a'"))
                .as("A is alive: its claim stays")
                .isEqualTo(1);

        a.kill();

        awaitTrue(
                () -> count("SELECT COUNT(*) FROM job_runs WHERE job_name = 'prune-audit' AND run_trigger = 'takeover'"
                                + " AND result = 'ok'")
                        == 1);
        Map<String, Object> takeover = row("SELECT run_id, instance_id, resumed_from, processed, epoch FROM job_runs"
                + " WHERE job_name = 'prune-audit' AND run_trigger = 'takeover'");
        assertThat((String) takeover.get("instance_id")).isIn(b.instance, c.instance);
        assertThat(takeover.get("resumed_from")).isEqualTo(runA);
        assertThat(takeover.get("processed")).isEqualTo(10L);
        Map<String, Object> killed = row("SELECT result, detail, epoch FROM job_runs WHERE run_id = " + runA);
        assertThat(killed.get("result")).isEqualTo("interrupted");
        assertThat((Long) takeover.get("epoch")).isGreaterThan((Long) killed.get("epoch"));
        assertThat(count("SELECT COUNT(*) FROM request_audit"))
                .as("resumed with A's cutoff: the younger row stays")
                .isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM request_audit WHERE at_ms = " + (cutoffA + 1)))
                .isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM job_checkpoints WHERE job_name = 'prune-audit'"))
                .isZero();
        JsonNode view = b.job(StandardJobs.PRUNE_AUDIT);
        assertThat(view.get("lastRuns").get(0).get("trigger").asText()).isEqualTo("takeover");
        assertThat(view.get("lastRuns").get(1).get("instanceId").asText()).isEqualTo(a.instance);

        awaitTrue(() -> count("SELECT COUNT(*) FROM idempotency_claims WHERE idem_key = 'left-by-a'") == 0);

        // Let B and C race for a few more occurrences of each scheduled job, then stop them cleanly.
        Map<String, Long> slotsNow = maxSlots();
        awaitTrue(() -> {
            Map<String, Long> later = maxSlots();
            for (String job : SCHEDULED) {
                if (later.getOrDefault(job, 0L) < slotsNow.getOrDefault(job, 0L) + 3) {
                    return false;
                }
            }
            return true;
        });
        b.stop();
        c.stop();

        assertThat(count(
                        "SELECT COUNT(*) FROM (SELECT job_name, slot FROM job_runs WHERE result = 'ok' AND slot IS NOT NULL"
                                + " GROUP BY job_name, slot HAVING COUNT(*) > 1) twice"))
                .as("no occurrence ran twice")
                .isZero();
        for (String job : SCHEDULED) {
            assertThat(count("SELECT COUNT(DISTINCT slot) FROM job_runs WHERE result = 'ok' AND job_name = '" + job
                            + "'"))
                    .as("occurrences of %s", job)
                    .isGreaterThanOrEqualTo(4);
            List<Long> epochs = longs("SELECT epoch FROM job_runs WHERE job_name = '" + job + "' ORDER BY run_id");
            assertThat(epochs).as("one lease per run of %s", job).isSorted().doesNotHaveDuplicates();
        }
        assertThat(strings("SELECT DISTINCT instance_id FROM job_runs"))
                .isSubsetOf(Set.of(a.instance, b.instance, c.instance));
        assertThat(count("SELECT COUNT(*) FROM job_runs WHERE result = 'running'"))
                .as("every run ended")
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM lease WHERE owner_id IS NOT NULL"))
                .as("every lease released")
                .isZero();
    }

    private Map<String, Long> maxSlots() throws SQLException {
        Map<String, Long> out = new HashMap<>();
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT job_name, MAX(slot) FROM job_runs WHERE result = 'ok' GROUP BY job_name");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }

    private void update(String sql, Object... params) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<Long> longs(String sql) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private List<String> strings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private Map<String, Object> row(String sql) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("a row of: %s", sql).isTrue();
            Map<String, Object> out = new HashMap<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                out.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
            }
            assertThat(rs.next()).as("one row of: %s", sql).isFalse();
            return out;
        }
    }

    private Map<String, Object> awaitRow(String sql) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Connection c = connect();
                    PreparedStatement ps = c.prepareStatement(sql);
                    ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return row(sql);
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no row within 60 s for: " + sql);
    }

    private static void awaitTrue(Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (condition.call()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the condition did not hold within 60 s");
    }
}
