package org.leasesync.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.flywaydb.core.Flyway;
import org.leasesync.server.store.Dialect;

/**
 * Data directories as an older leasesync left them: the schema at an older version, built with this
 * checkout's own migrations ({@code target}), holding data of that version; and a snapshot of what a
 * database holds, to compare an upgrade cut short and resumed with one that went straight through.
 */
final class OldSchemas {

    /** Columns whose values a migration makes up (random ids, the time it ran): left out of snapshots. */
    private static final Set<String> MADE_UP = Set.of("SESSION_ID", "CREATED_AT_MS", "LAST_USED_AT_MS", "STAMP");

    private OldSchemas() {}

    /** A client data directory at schema {@code target} (1 or more; 2+ holds local records and unsent edits). */
    static void client(Path dataDir, int target) throws SQLException {
        String url = "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("leasesync");
        Flyway.configure()
                .dataSource(url, "sa", "")
                .locations(SqlDialect.H2.clientMigrations())
                .target(String.valueOf(target))
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                Statement st = c.createStatement()) {
            st.execute("INSERT INTO lease (task_key, owner_id, epoch, heartbeat, ttl_ms, granted_at_ms, renewed_at_ms,"
                    + " expires_at_ms) VALUES ('alice|backup', NULL, 7, 19, 30000, 1700000000000, 1700000001000,"
                    + " 1700000031000), ('alice|course_sync', 'vm:pidns1/4242/1/ab', 3, 5, 30000, 1700000000000,"
                    + " 1700000002000, 1700000032000)");
            for (int i = 0; i < 6; i++) {
                st.execute(
                        "INSERT INTO run (run_id, task_key, epoch, owner_id, first_source, started_at_ms, ended_at_ms,"
                                + " stage, status) VALUES ('run-" + i + "', 'alice|backup', " + (1 + i)
                                + ", 'vm:pidns1/4242/1/ab',"
                                + " 'schedule', " + (1700000000000L + i * 1000) + ", " + (1700000000500L + i * 1000)
                                + ", 'done', 'succeeded')");
            }
            if (target >= 2) {
                st.execute("INSERT INTO client_identity (id, client_id) VALUES (1, 'client-0001')");
                st.execute(
                        "INSERT INTO local_record (user_id, scope, record_id, version, deleted, payload, server_time_ms)"
                                + " VALUES ('alice', 'backup', 'r1', 4, FALSE, '{\"title\":\"synced\"}', 1700000000000),"
                                + " ('alice', 'backup', 'r2', 2, FALSE, '{\"title\":\"other\"}', 1700000000000)");
                st.execute("INSERT INTO outbox (user_id, scope, change_id, record_id, base_version, deleted, payload,"
                        + " created_at_ms, state) VALUES ('alice', 'backup', 'change-1', 'r1', 4, FALSE,"
                        + " '{\"title\":\"unsent edit\"}', 1700000005000, 'pending'),"
                        + " ('alice', 'backup', 'change-2', 'r3', 0, FALSE, '{\"title\":\"new, unsent\"}', 1700000006000,"
                        + " 'pending')");
            }
            st.execute("SHUTDOWN");
        }
    }

    /** A server data directory at schema {@code target} (1 or more) holding a user, a token and a record. */
    static void server(Path dataDir, int target) throws SQLException {
        String url = "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("leasesync-server");
        Flyway.configure()
                .dataSource(url, "sa", "")
                .locations(Dialect.H2.migrations())
                .target(String.valueOf(target))
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                Statement st = c.createStatement()) {
            st.execute(
                    "INSERT INTO sync_users (user_id, token, created_at_ms) VALUES ('alice', 'token-of-alice', 1700000000000)");
            st.execute("INSERT INTO scope_state (user_id, scope, last_seq) VALUES ('alice', 'backup', 1)");
            st.execute("INSERT INTO sync_records (user_id, scope, record_id, record_version, deleted, payload, seq,"
                    + " updated_at_ms) VALUES ('alice', 'backup', 'r1', 1, FALSE, '{\"a\":1}', 1, 1700000000000)");
            st.execute("SHUTDOWN");
        }
    }

    /**
     * Every row of every table but Flyway's history (whose timestamps differ), in a fixed order, and the
     * versions the history lists; columns a migration makes up are left out.
     */
    static String snapshot(Connection c) throws SQLException {
        StringBuilder out = new StringBuilder();
        List<String> tables = new ArrayList<>();
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT TABLE_NAME FROM "
                        + "INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC' ORDER BY TABLE_NAME")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        for (String t : tables) {
            if (t.equalsIgnoreCase("flyway_schema_history")) {
                continue;
            }
            List<String> rows = new ArrayList<>();
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT * FROM \"" + t + "\"")) {
                ResultSetMetaData md = rs.getMetaData();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        if (!MADE_UP.contains(md.getColumnName(i).toUpperCase(java.util.Locale.ROOT))) {
                            row.append(md.getColumnName(i))
                                    .append('=')
                                    .append(rs.getString(i))
                                    .append(' ');
                        }
                    }
                    rows.add(row.toString());
                }
            }
            rows.sort(null);
            out.append(t).append(": ").append(rows).append('\n');
        }
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT \"version\", \"success\" FROM "
                        + "\"flyway_schema_history\" ORDER BY \"installed_rank\"")) {
            out.append("history:");
            while (rs.next()) {
                out.append(' ').append(rs.getString(1)).append(rs.getBoolean(2) ? "" : "(failed)");
            }
        }
        return out.toString();
    }
}
