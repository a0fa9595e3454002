package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.PostgresDatabases;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.TestClient;
import org.leasesync.testing.PostgresTest;

/**
 * The statistics are counted in memory and written to the database by a flush, not by each
 * request: nothing is written before the flush, everything exactly once after it, a failed flush
 * keeps what it could not write, and the instances of a cluster write theirs every second and
 * when they close.
 */
@PostgresTest
class StatsFlushTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    private ServerDatabase db;
    private StatsStore stats;
    private StatsTables tables;

    @BeforeEach
    void open() throws SQLException {
        db = ServerDatabase.open((Path) null);
        stats = new StatsStore(db, false);
        tables = new StatsTables(db, false);
        stats.register(0);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = db.connection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private String runRow() throws SQLException {
        try (Connection c = db.connection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT run_id, start_us, end_us FROM run_intervals")) {
            StringBuilder out = new StringBuilder();
            while (rs.next()) {
                out.append(rs.getString(1))
                        .append(' ')
                        .append(rs.getLong(2))
                        .append(' ')
                        .append(rs.getLong(3))
                        .append(';');
            }
            return out.toString();
        }
    }

    private static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    @Test
    void theFirstRequestAfterAFlushIsToldAndAQuietFlushSaysWhetherItHadWork() {
        java.util.concurrent.atomic.AtomicInteger told = new java.util.concurrent.atomic.AtomicInteger();
        stats.onFirstCount(told::incrementAndGet);
        assertThat(stats.flushQuietly()).as("nothing counted yet").isFalse();
        stats.request();
        stats.request();
        stats.request();
        assertThat(told).as("once for the first of three requests").hasValue(1);
        assertThat(stats.flushQuietly()).as("three requests written").isTrue();
        assertThat(stats.flushQuietly()).as("nothing since").isFalse();
        stats.request();
        assertThat(told).as("the first request after the flush").hasValue(2);
        stats.recordRun("alice", "inbox", "r1", T0, T0.plusSeconds(1));
        assertThat(stats.flushQuietly()).isTrue();
        stats.recordRun("alice", "inbox", "r1", T0, T0.plusSeconds(2));
        assertThat(stats.flushQuietly()).as("a run interval alone is work").isTrue();
        assertThat(stats.flushQuietly()).isFalse();
    }

    @Test
    void requestsAreCountedInMemoryAndWrittenOnceByAFlush() throws SQLException {
        for (int i = 0; i < 5; i++) {
            stats.request();
        }
        stats.push();
        stats.push();
        stats.recordRun("alice", "backup", "run-1", T0, T0.plusMillis(10));
        stats.recordRun("alice", "backup", "run-1", T0.plusMillis(50), T0.plusMillis(70));

        assertThat(tables.snapshot())
                .as("nothing written per request")
                .isEqualTo(new ServerStats(0, 0, 0, Map.of(), 0));
        assertThat(runRow()).isEmpty();

        stats.flush();
        stats.flush();

        ServerStats written = tables.snapshot();
        assertThat(written.requests()).isEqualTo(5);
        assertThat(written.pushes()).isEqualTo(2);
        assertThat(runRow())
                .as("one run, one widened interval")
                .isEqualTo("run-1 " + micros(T0) + " " + micros(T0.plusMillis(70)) + ";");
    }

    @Test
    void aFailedFlushKeepsWhatItCouldNotWriteForTheNextOne() throws SQLException {
        stats.request();
        stats.push();
        stats.recordRun("bob", "backup", "run-2", T0, T0.plusMillis(5));
        execute("ALTER TABLE instance_counters RENAME TO counters_away");

        assertThatThrownBy(stats::flush).isInstanceOf(SQLException.class);
        stats.request();
        execute("ALTER TABLE counters_away RENAME TO instance_counters");
        execute("ALTER TABLE run_intervals RENAME TO runs_away");
        assertThatThrownBy(stats::flush).isInstanceOf(SQLException.class);
        execute("ALTER TABLE runs_away RENAME TO run_intervals");
        stats.flush();

        ServerStats written = tables.snapshot();
        assertThat(written.requests()).isEqualTo(2);
        assertThat(written.pushes()).isEqualTo(1);
        assertThat(runRow()).isEqualTo("run-2 " + micros(T0) + " " + micros(T0.plusMillis(5)) + ";");
    }

    @Test
    void aSnapshotAndAResetFlushThisInstanceFirst() throws SQLException {
        stats.request();
        stats.push();

        assertThat(stats.snapshot().requests()).isEqualTo(1);
        stats.request();
        stats.reset();

        assertThat(tables.snapshot()).isEqualTo(new ServerStats(0, 0, 0, Map.of(), 0));
        stats.flush();
        assertThat(tables.snapshot().requests())
                .as("the request before the reset stays reset")
                .isZero();
    }

    @Test
    void instancesWriteTheirCountsEverySecondAndWhenTheyClose() throws Exception {
        ServerConfig cfg = ServerConfig.defaults().withDatabase(PostgresDatabases.fresh());
        try (ReferenceServer a = ReferenceServer.start(cfg);
                ReferenceServer b = ReferenceServer.start(cfg);
                ReferenceServer c = ReferenceServer.start(cfg)) {
            TestClient onA = new TestClient(a);
            for (int i = 0; i < 3; i++) {
                assertThat(onA.pull("alice", "course_sync", null).status()).isEqualTo(200);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (b.stats().requests() < 3) {
                assertThat(System.nanoTime())
                        .as("a's counts never reached the database")
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(b.stats().requests()).isEqualTo(3);

            TestClient onC = new TestClient(c);
            assertThat(onC.push("alice", "backup", "k-close", TestClient.oneChange("c-close", "r", 0, "{}"))
                            .status())
                    .isEqualTo(200);
            c.close();
            assertThat(b.stats().pushes()).as("written when c closed").isEqualTo(1);
            assertThat(b.stats().requests()).isEqualTo(4);
        }
    }
}
