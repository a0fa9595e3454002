package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server notices that its data went back (docs/protocol.md §4.2): a real server database is
 * backed up, written to, restored from the backup (the H2 files copied back here; a PostgreSQL
 * database copied from a template in the subclass), and a server started on it again. A cursor or
 * push position from after the backup gets {@code 400 invalid_cursor} with reason {@code went_back},
 * also once the restored server has given its sequence numbers to other writes; one from before the
 * backup goes on.
 */
class RestoreDetectionTest {

    static final String USER = "alice";
    static final String SCOPE = "course_sync";

    @TempDir
    Path dataDir;

    @TempDir
    Path backupDir;

    ReferenceServer server;
    TestClient client;

    /** The configuration of the server under test (an H2 file here). */
    ServerConfig config() {
        return ServerConfig.defaults().withDataDir(dataDir);
    }

    /** Takes a backup of the stopped server's database. */
    void backup() {
        copyFiles(dataDir, backupDir);
    }

    /** Replaces the stopped server's database by the backup. */
    void restore() {
        copyFiles(backupDir, dataDir);
    }

    /** Runs SQL on the stopped server's database. */
    void sql(String... statements) throws SQLException {
        String url = "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("leasesync-server");
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                Statement s = c.createStatement()) {
            for (String st : statements) {
                s.execute(st);
            }
        }
    }

    void start() {
        server = ReferenceServer.start(config());
        client = new TestClient(server);
    }

    void stop() {
        server.close();
        server = null;
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void cursorsAndPushPositionsFromAfterTheBackupAreRefusedAsWentBackAndOlderOnesGoOn() throws Exception {
        start();
        String beforeBackup = pull(null).get("nextCursor").asText();
        stop();
        backup();
        start();
        JsonNode pushed = push("edit-y", "course-1", 1); // device Y edits; X pulls it
        String position = pushed.get("position").asText();
        JsonNode afterEdit = pull(beforeBackup);
        assertThat(afterEdit.get("changes")).hasSize(1);
        String afterBackup = afterEdit.get("nextCursor").asText();
        stop();
        restore();
        start();

        assertWentBack(client.pull(USER, SCOPE, "since=" + afterBackup), "cursor '" + afterBackup + "'");
        assertWentBack(client.pull(USER, SCOPE, "since=" + beforeBackup + "&pushed=" + position), "push position");
        assertThat(pull(beforeBackup).get("changes"))
                .as("the edit is gone from the restored server")
                .isEmpty();

        // Device Z writes: the restored server gives the same sequence number to another write.
        JsonNode z = push("new-z", "course-z", 0);
        assertThat(seq(z.get("position").asText())).isEqualTo(seq(afterBackup));
        assertWentBack(client.pull(USER, SCOPE, "since=" + afterBackup), "is not the one the cursor names");
        assertWentBack(client.pull(USER, SCOPE, "since=" + beforeBackup + "&pushed=" + position), "push position");
        JsonNode fromBefore = pull(beforeBackup);
        assertThat(fromBefore.get("changes"))
                .extracting(c -> c.get("id").asText())
                .containsExactly("course-z");
        assertThat(pull(fromBefore.get("nextCursor").asText()).get("changes")).isEmpty();
        assertThat(client.pull(
                                USER,
                                SCOPE,
                                "since=" + beforeBackup + "&pushed="
                                        + z.get("position").asText())
                        .status())
                .as("a position on the history")
                .isEqualTo(200);
    }

    @Test
    void aCursorOfTheLegacyFormGoesOnUnlessItIsAheadAndIsAnsweredWithAStampedCursor() throws Exception {
        start();
        String cursor = pull(null).get("nextCursor").asText();
        String[] parts = cursor.split(":");
        assertThat(parts).as("DBID:SEQ:GEN:STAMP").hasSize(4);
        String legacy = parts[0] + ":" + parts[1];
        JsonNode same = pull(legacy);
        assertThat(same.get("changes")).isEmpty();
        assertThat(same.get("nextCursor").asText())
                .as("the same position, with its stamp")
                .isEqualTo(cursor);
        assertWentBack(
                client.pull(USER, SCOPE, "since=" + parts[0] + ":" + (Long.parseLong(parts[1]) + 1)),
                "but this server's newest is " + parts[1]);
    }

    @Test
    void theMigrationGivesWhatWasWrittenBeforeItAHistory() throws Exception {
        start();
        String cursor = pull(null).get("nextCursor").asText();
        stop();
        // The database as before migration 6: no history table (and the lease row of before migration 7,
        // the clear tokens of before migration 8).
        sql(
                "DROP TABLE scope_history",
                "DELETE FROM \"flyway_schema_history\" WHERE \"version\" IN ('6', '7', '8')",
                "ALTER TABLE lease ADD COLUMN granted_at_ms BIGINT DEFAULT 0 NOT NULL",
                "ALTER TABLE lease ADD COLUMN expires_at_ms BIGINT DEFAULT 0 NOT NULL",
                "DROP TABLE user_sessions",
                "DROP TABLE sign_in_failures",
                "ALTER TABLE sync_users DROP COLUMN password_hash",
                "ALTER TABLE sync_users DROP COLUMN is_admin",
                "ALTER TABLE sync_users DROP COLUMN disabled",
                "ALTER TABLE sync_users ADD COLUMN token VARCHAR(128)",
                "UPDATE sync_users SET token = user_id",
                "ALTER TABLE sync_users ALTER COLUMN token SET NOT NULL",
                "ALTER TABLE sync_users ADD CONSTRAINT sync_users_token_unique UNIQUE (token)");
        start();
        String[] parts = cursor.split(":");
        JsonNode upgraded = pull(parts[0] + ":" + parts[1]);
        String stamped = upgraded.get("nextCursor").asText();
        assertThat(stamped.split(":")).hasSize(4);
        assertThat(stamped)
                .as("a new stamp: the rows before the migration are one write")
                .isNotEqualTo(cursor);
        assertWentBack(client.pull(USER, SCOPE, "since=" + cursor), "is not the one the cursor names");
        assertThat(pull(stamped).get("changes")).isEmpty();
    }

    JsonNode pull(String since) throws IOException {
        TestClient.Resp r = client.pull(USER, SCOPE, since == null ? null : "since=" + since);
        assertThat(r.status()).as("pull since %s: %s", since, r.body()).isEqualTo(200);
        return r.json();
    }

    JsonNode push(String changeId, String id, long base) throws IOException {
        TestClient.Resp r = client.push(
                USER,
                SCOPE,
                TestClient.newId(),
                TestClient.oneChange(changeId, id, base, "{\"title\":\"" + changeId + "\"}"));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("results").get(0).get("status").asText()).isEqualTo("applied");
        return r.json();
    }

    static long seq(String cursor) {
        return Long.parseLong(cursor.split(":")[1]);
    }

    static void assertWentBack(TestClient.Resp r, String messagePart) {
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("code").asText()).isEqualTo("invalid_cursor");
        assertThat(r.json().get("reason").asText()).isEqualTo("went_back");
        assertThat(r.json().get("message").asText()).contains("went back").contains(messagePart);
    }

    static void copyFiles(Path from, Path to) {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
