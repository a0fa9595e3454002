package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A server database from before accounts — made by running the old migrations' own SQL (V1..V7)
 * and filled as that server filled it, tokens in clear — still accepts its old tokens after V8
 * turned them into sessions, and keeps no token in clear. On H2 and on PostgreSQL.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@PostgresTest
class TokenMigrationTest {

    private static final String ALICE = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    private static final String BOB = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
    private static final String ADMIN = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC";

    @Test
    void anH2DataDirFromBeforeAccountsKeepsItsTokens(@TempDir Path dir) throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:file:" + dir.toAbsolutePath().resolve("leasesync-server"));
        ds.setUser("sa");
        ds.setPassword("");
        makeOldDatabase(ds, Dialect.H2.migrations());
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
        assertThat(new String(Files.readAllBytes(dir.resolve("leasesync-server.mv.db")), StandardCharsets.ISO_8859_1))
                .as("the control: the old server's file holds its tokens in clear")
                .contains(ALICE, BOB, ADMIN);

        try (ReferenceServer server = ReferenceServer.start(
                ServerConfig.defaults().withDataDir(dir).withSeed(org.leasesync.server.demo.Seed.NONE))) {
            oldTokensWork(server);
            noClearToken(server.database().dataSource());
        }
        // Nor in the file's free space: the pages of the dropped column are not left readable.
        String file =
                new String(Files.readAllBytes(dir.resolve("leasesync-server.mv.db")), StandardCharsets.ISO_8859_1);
        assertThat(file).as("the control: a name stored then is there").contains("alice");
        for (String token : new String[] {ALICE, BOB, ADMIN}) {
            assertThat(file).as("the H2 file, free space included").doesNotContain(token);
        }
    }

    @Test
    void aPostgresqlDatabaseFromBeforeAccountsKeepsItsTokens() throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.jdbcUrl());
        ds.setUser(Postgres.USER);
        ds.setPassword(Postgres.PASSWORD);
        makeOldDatabase(ds, Dialect.POSTGRESQL.migrations());

        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults()
                .withDatabase(PostgresDatabases.of(db))
                .withSeed(org.leasesync.server.demo.Seed.NONE))) {
            oldTokensWork(server);
            noClearToken(ds);
        }
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                ResultSet rs = c.getMetaData().getColumns(null, null, "sync_users", "token")) {
            assertThat(rs.next()).as("the clear token column is gone").isFalse();
        }
    }

    /** V1..V7 exactly as they ran before accounts, then rows as that server wrote them. */
    private static void makeOldDatabase(DataSource ds, String[] location) throws Exception {
        Flyway.configure().dataSource(ds).locations(location).target("7").load().migrate();
        try (Connection c = ds.getConnection()) {
            for (String[] u : new String[][] {{"alice", ALICE}, {"bob", BOB}}) {
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO sync_users (user_id, token, created_at_ms) VALUES (?, ?, 1)")) {
                    ps.setString(1, u[0]);
                    ps.setString(2, u[1]);
                    ps.executeUpdate();
                }
                for (String scope : new String[] {"course_sync", "message_sync", "backup"}) {
                    try (PreparedStatement ps =
                            c.prepareStatement("INSERT INTO scope_state (user_id, scope, last_seq) VALUES (?, ?, 0)")) {
                        ps.setString(1, u[0]);
                        ps.setString(2, scope);
                        ps.executeUpdate();
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO server_settings (setting_name, setting_value) VALUES ('admin_token', ?)")) {
                ps.setString(1, ADMIN);
                ps.executeUpdate();
            }
        }
    }

    private static void oldTokensWork(ReferenceServer server) throws Exception {
        TestClient client = new TestClient(server);
        assertThat(client.get(TestClient.changesPath("alice", "backup"), ALICE, Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(client.get(TestClient.changesPath("bob", "backup"), BOB, Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(client.get(TestClient.changesPath("bob", "backup"), ALICE, Map.of())
                        .status())
                .isEqualTo(403);
        assertThat(client.get("/v1/admin/stats", ADMIN, Map.of()).status()).isEqualTo(200);
        assertThat(client.get("/v1/admin/stats", ALICE, Map.of()).status()).isEqualTo(403);
        assertThat(client.get(TestClient.changesPath("admin", "backup"), ADMIN, Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(client.get("/v1/sessions", ALICE, Map.of())
                        .json()
                        .get("sessions")
                        .get(0)
                        .get("device")
                        .asText())
                .isEqualTo("token from before accounts");
        assertThat(server.accounts().find("admin").orElseThrow().admin()).isTrue();
        assertThat(server.accounts().find("admin").orElseThrow().hasPassword()).isFalse();
        assertThat(server.adminToken())
                .as("the programmatic admin is that account")
                .isNotEqualTo(ADMIN);
    }

    private static void noClearToken(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            for (String table : new String[] {"sync_users", "user_sessions", "server_settings"}) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            assertThat(String.valueOf(rs.getObject(i)))
                                    .as(table)
                                    .doesNotContain(ALICE)
                                    .doesNotContain(BOB)
                                    .doesNotContain(ADMIN);
                        }
                    }
                }
            }
        }
    }
}
