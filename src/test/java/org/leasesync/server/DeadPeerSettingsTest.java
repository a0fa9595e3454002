package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.server.store.ServerInstanceId;
import org.leasesync.testing.PostgresTest;

/**
 * Every PostgreSQL session of a server instance carries the settings that let PostgreSQL notice a
 * vanished instance within seconds (TCP keepalives and a user timeout): without them, a host that
 * died without closing its connections keeps its instance lock and row locks for hours
 * (docs/scale-out.md; the behaviour itself is checked by scale/host-lost.sh in network namespaces).
 */
@PostgresTest
class DeadPeerSettingsTest {

    @Test
    void theServersSessionsProbeForADeadPeerAndTimeOutUnacknowledgedData() throws SQLException {
        try (ServerDatabase db = ServerDatabase.open(PostgresDatabases.fresh(), ServerInstanceId.create());
                Connection c = db.connection()) {
            assertThat(show(c, "tcp_keepalives_idle")).isEqualTo("5");
            assertThat(show(c, "tcp_keepalives_interval")).isEqualTo("2");
            assertThat(show(c, "tcp_keepalives_count")).isEqualTo("3");
            assertThat(show(c, "tcp_user_timeout")).isEqualTo("10000"); // milliseconds
            assertThat(show(c, "application_name")).isEqualTo("leasesync-server");
        }
    }

    @Test
    void aUrlMayStillSetItsOwnSessionOptions() throws SQLException {
        ServerDatabaseConfig.Postgres base = PostgresDatabases.fresh();
        ServerDatabaseConfig.Postgres own = new ServerDatabaseConfig.Postgres(
                base.jdbcUrl() + (base.jdbcUrl().contains("?") ? "&" : "?") + "options=-c%20tcp_keepalives_idle=7",
                base.user(),
                base.password(),
                base.poolSize());
        try (ServerDatabase db = ServerDatabase.open(own, ServerInstanceId.create());
                Connection c = db.connection()) {
            assertThat(show(c, "tcp_keepalives_idle")).isEqualTo("7");
        }
    }

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
