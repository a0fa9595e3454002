package org.leasesync.server;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.Postgres;

/**
 * Server databases on the tests' real PostgreSQL ({@link Postgres}): a fresh one per call
 * ({@link #fresh()}), or one database reused by the single-instance test classes and emptied
 * before each use ({@link #emptied()}), which spares a migration per test.
 */
public final class PostgresDatabases {

    /** Connections per server instance in tests: small, so that many instances fit. */
    static final int POOL_SIZE = 4;

    private static Postgres.Db reused;

    private PostgresDatabases() {}

    /** A fresh database, as a server database configuration. */
    public static ServerDatabaseConfig.Postgres fresh() {
        return of(Postgres.newDatabase());
    }

    /** The given database, as a server database configuration. */
    static ServerDatabaseConfig.Postgres of(Postgres.Db db) {
        return new ServerDatabaseConfig.Postgres(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, POOL_SIZE);
    }

    /**
     * The reused database with every server table emptied (the schema and its migration history
     * stay); no server may be running on it.
     */
    static synchronized ServerDatabaseConfig.Postgres emptied() {
        if (reused == null) {
            reused = Postgres.newDatabase();
            return of(reused);
        }
        try (Connection c = DriverManager.getConnection(reused.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'public' AND table_name <> 'flyway_schema_history'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            if (!tables.isEmpty()) {
                s.execute("TRUNCATE " + String.join(", ", tables) + " RESTART IDENTITY");
                s.execute("INSERT INTO stats_state (id, generation, audit_after_seq) VALUES (1, 0, 0)");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot empty the test database " + reused.name() + ": " + e, e);
        }
        return of(reused);
    }
}
