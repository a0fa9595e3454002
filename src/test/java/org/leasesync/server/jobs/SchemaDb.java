package org.leasesync.server.jobs;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.leasesync.server.store.Dialect;
import org.leasesync.store.DataSourceDatabase;
import org.leasesync.store.SqlDialect;
import org.leasesync.testing.Postgres;

/**
 * The sync server's schema, migrated by Flyway from its real migrations, on a real H2 (in memory)
 * or a real PostgreSQL (a fresh database), with a pool like the server's own (PostgreSQL: a 10 s
 * lock_timeout). For job tests that need the tables but not a whole server.
 */
final class SchemaDb implements AutoCloseable {

    final HikariDataSource pool;
    final DataSourceDatabase db;
    final SqlDialect dialect;

    private SchemaDb(HikariDataSource pool, SqlDialect dialect, String description) {
        this.pool = pool;
        this.dialect = dialect;
        this.db = new DataSourceDatabase(pool, dialect, description);
    }

    static SchemaDb h2() {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl("jdbc:h2:mem:jobs-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        cfg.setUsername("sa");
        cfg.setPassword("");
        cfg.setMaximumPoolSize(8);
        return migrated(new HikariDataSource(cfg), SqlDialect.H2, Dialect.H2.migrations(), "H2 job test schema");
    }

    static SchemaDb postgres() {
        Postgres.Db pg = Postgres.newDatabase();
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(pg.jdbcUrl());
        cfg.setUsername(Postgres.USER);
        cfg.setPassword(Postgres.PASSWORD);
        cfg.setMaximumPoolSize(8);
        cfg.setConnectionInitSql(SqlDialect.POSTGRESQL.connectionInitSql());
        return migrated(
                new HikariDataSource(cfg),
                SqlDialect.POSTGRESQL,
                Dialect.POSTGRESQL.migrations(),
                "PostgreSQL " + pg.name());
    }

    static SchemaDb of(SqlDialect dialect) {
        return dialect == SqlDialect.H2 ? h2() : postgres();
    }

    private static SchemaDb migrated(HikariDataSource pool, SqlDialect dialect, String[] location, String description) {
        Flyway.configure().dataSource(pool).locations(location).load().migrate();
        return new SchemaDb(pool, dialect, description);
    }

    void execute(String sql) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    long count(String sql) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Runs a prepared statement with the given parameters (auto-commit). */
    void update(String sql, Object... params) throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
