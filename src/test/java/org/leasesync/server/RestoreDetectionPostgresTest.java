package org.leasesync.server;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * {@link RestoreDetectionTest} on PostgreSQL: the backup is a copy of the whole database made with
 * {@code CREATE DATABASE ... TEMPLATE} while no server is connected (a file-level copy, like a
 * restored base backup), and the restore drops the database and creates it again from that copy.
 */
@PostgresTest
class RestoreDetectionPostgresTest extends RestoreDetectionTest {

    private final Postgres.Db db = Postgres.newDatabase();
    private final String backupName = db.name() + "_backup";

    @Override
    ServerConfig config() {
        return ServerConfig.defaults().withDatabase(PostgresDatabases.of(db));
    }

    @Override
    void backup() {
        admin("CREATE DATABASE " + backupName + " TEMPLATE " + db.name());
    }

    @Override
    void restore() {
        admin("DROP DATABASE " + db.name(), "CREATE DATABASE " + db.name() + " TEMPLATE " + backupName);
    }

    @Override
    void sql(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement()) {
            for (String st : statements) {
                s.execute(st);
            }
        }
    }

    private static void admin(String... statements) {
        try (Connection c = Postgres.server().getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            for (String st : statements) {
                s.execute(st);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run " + String.join("; ", statements) + ": " + e, e);
        }
    }
}
