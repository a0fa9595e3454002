package org.leasesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The PostgreSQL the tests use is real and gives each caller a database of its own. */
@PostgresTest
class PostgresFixtureTest {

    @Test
    void givesEachCallerAFreshDatabaseOnARealPostgresql() throws Exception {
        Postgres.Db a = Postgres.newDatabase();
        Postgres.Db b = Postgres.newDatabase();
        assertThat(a.name()).isNotEqualTo(b.name());
        try (Connection c = DriverManager.getConnection(a.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE only_in_a (id INT)");
            try (ResultSet rs =
                    s.executeQuery("SELECT current_database(), current_setting('server_version_num')::int")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(a.name());
                assertThat(rs.getInt(2)).isGreaterThanOrEqualTo(140000);
            }
        }
        try (Connection c = DriverManager.getConnection(b.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'only_in_a'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isZero();
        }
    }
}
