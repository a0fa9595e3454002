package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.leasesync.testing.Postgres;

/** Test pools of the kind a server builds for itself, and raw connections to poke the database with. */
final class Pools {

    private Pools() {}

    /** A HikariCP pool on {@code db} whose connections wait at most {@code lockTimeoutMillis} for a row lock (0 = for ever). */
    static HikariDataSource postgres(Postgres.Db db, long lockTimeoutMillis) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(db.jdbcUrl());
        cfg.setUsername(Postgres.USER);
        cfg.setPassword(Postgres.PASSWORD);
        cfg.setMaximumPoolSize(4);
        cfg.setPoolName("test-" + db.name());
        cfg.setConnectionInitSql("SET lock_timeout = " + lockTimeoutMillis);
        return new HikariDataSource(cfg);
    }

    /** A HikariCP pool on a private in-memory H2 database. */
    static HikariDataSource h2(String name) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl("jdbc:h2:mem:" + name + "-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        cfg.setUsername("sa");
        cfg.setPassword("");
        cfg.setMaximumPoolSize(4);
        return new HikariDataSource(cfg);
    }

    /** A connection outside any pool (the "other process"). */
    static Connection raw(Postgres.Db db) throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
    }

    static void execute(javax.sql.DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Waits (at most 30 s) until some session of {@code db} waits for a lock: the statement under test is queued. */
    static void awaitLockWait(Postgres.Db db) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = raw(db);
                PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND wait_event_type = 'Lock'")) {
            ps.setString(1, db.name());
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                assertThat(System.nanoTime())
                        .as("no session of %s started waiting for a lock", db.name())
                        .isLessThan(deadline);
                Thread.sleep(10);
            }
        }
    }
}
