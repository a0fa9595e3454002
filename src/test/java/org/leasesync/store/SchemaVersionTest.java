package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * Opening a database whose schema is current skips Flyway ({@link SchemaVersion}); these tests pin
 * the check to Flyway's own history on real H2 and PostgreSQL and keep the latest version in step
 * with the migration files.
 */
@PostgresTest
class SchemaVersionTest {

    @TempDir
    Path dir;

    @Test
    void latestClientMigrationIsTheHighestMigrationFlywayFindsForBothVendors() {
        for (SqlDialect d : SqlDialect.values()) {
            assertThat(highestResolvedVersion(d.clientMigrations()))
                    .as(String.join(",", d.clientMigrations()))
                    .isEqualTo(SqlDialect.LATEST_CLIENT_MIGRATION);
        }
    }

    @Test
    void aNewDatabaseIsNotCurrentAndAMigratedOneIs() throws Exception {
        JdbcDataSource ds = h2("fresh");
        assertThat(SchemaVersion.isCurrent(ds, SqlDialect.LATEST_CLIENT_MIGRATION))
                .isFalse();
        try (Database db = Database.open(ds.getURL(), "test", 2)) {
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION))
                    .isTrue();
            // one version behind what the application ships: not current, so Flyway would run
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION + 1))
                    .isFalse();
        }
    }

    @Test
    void aMissingFailedOrFutureVersionIsNotCurrent() throws Exception {
        int latest = SqlDialect.LATEST_CLIENT_MIGRATION;
        for (String damage : new String[] {
            "DELETE FROM \"flyway_schema_history\" WHERE \"version\" = '3'",
            "UPDATE \"flyway_schema_history\" SET \"success\" = FALSE WHERE \"version\" = '" + latest + "'",
            "UPDATE \"flyway_schema_history\" SET \"version\" = '" + (latest + 1) + "' WHERE \"version\" = '" + latest
                    + "'",
            "UPDATE \"flyway_schema_history\" SET \"version\" = NULL WHERE \"version\" = '1'"
        }) {
            JdbcDataSource ds = h2("damaged" + Math.abs(damage.hashCode()));
            try (Database db = Database.open(ds.getURL(), "test", 2)) {
                assertThat(SchemaVersion.isCurrent(db.dataSource(), latest)).isTrue();
                try (Connection c = ds.getConnection();
                        Statement st = c.createStatement()) {
                    assertThat(st.executeUpdate(damage)).as(damage).isEqualTo(1);
                }
                assertThat(SchemaVersion.isCurrent(db.dataSource(), latest))
                        .as(damage)
                        .isFalse();
            }
        }
    }

    @Test
    void aDatabaseOpenedAgainIsCurrentAndKeepsItsData() throws Exception {
        // the second open takes the short path (no Flyway); the schema and the rows are all there
        String url = "jdbc:h2:file:" + dir.resolve("again");
        try (Database db = Database.open(url, "test", 2);
                Connection c = db.dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.executeUpdate(
                    "INSERT INTO local_record (user_id, scope, record_id, version, deleted, payload, server_time_ms) "
                            + "VALUES ('alice', 'course_sync', 'r1', 1, FALSE, '{}', 0)");
        }
        try (Database db = Database.open(url, "test", 2)) {
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION))
                    .isTrue();
            try (Connection c = db.dataSource().getConnection();
                    Statement st = c.createStatement();
                    var rs = st.executeQuery("SELECT COUNT(*) FROM local_record")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
    }

    @Test
    void theCheckReadsFlywaysHistoryOnPostgresql() {
        Postgres.Db pg = Postgres.newDatabase();
        try (Database db = Database.open(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "pg", 2)) {
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION))
                    .isTrue();
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION + 1))
                    .isFalse();
        }
    }

    private JdbcDataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:schema-version-" + name + ";DB_CLOSE_DELAY=-1");
        ds.setUser("sa");
        return ds;
    }

    /** The highest version Flyway resolves from {@code location} (as pending migrations of an empty database). */
    static int highestResolvedVersion(String[] location) {
        JdbcDataSource empty = new JdbcDataSource();
        empty.setURL("jdbc:h2:mem:schema-version-resolve-" + System.nanoTime());
        empty.setUser("sa");
        MigrationInfo[] all = Flyway.configure()
                .dataSource(empty)
                .locations(location)
                .load()
                .info()
                .all();
        return Arrays.stream(all)
                .mapToInt(m -> Integer.parseInt(m.getVersion().getVersion()))
                .max()
                .orElse(-1);
    }
}
