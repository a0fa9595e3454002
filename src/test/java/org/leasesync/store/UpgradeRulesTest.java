package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The rule for every pair of versions on one data directory, with real child JVMs: a migration that
 * outlives half the open timeout completes; a newer schema is refused, naming it, with nothing
 * changed; two processes starting at once on an old directory — one migrates, the other waits and
 * then uses it.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@ProcessTest
class UpgradeRulesTest {

    @TempDir
    Path tmp;

    @Test
    void aMigrationOutlivingTheWholeOpenTimeoutCompletesAndTheUpgradeIsAnnounced() throws Exception {
        Path dir = tmp.resolve("d");
        OldSchemas.client(dir, 2);
        Path log = tmp.resolve("slow.log");
        // statement 3 pauses 12 s; the open timeout is 8 s (each open attempt was abandoned after 4 s). The timeout
        // still bounds connecting: under heavy load a cold JVM's first connection alone can take over a second.
        Process p = JavaProcess.start(MigrateMain.class, log, "client", dir.toString(), "3", "12000", "8000");
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out)
                .contains("leasesync-migration-paused 3", "opened")
                .containsPattern("upgrading the local database .*leasesync.mv.db from schema 2 to "
                        + SqlDialect.LATEST_CLIENT_MIGRATION);
        try (Database db = Database.openFile(dir, Duration.ofSeconds(30))) {
            assertThat(SchemaVersion.isCurrent(db.dataSource(), SqlDialect.LATEST_CLIENT_MIGRATION))
                    .isTrue();
            int pending = db.query("outbox", c -> count(c, "SELECT COUNT(*) FROM outbox WHERE state = 'pending'"));
            assertThat(pending).isEqualTo(2);
        }
        assertThat(dir.resolve("leasesync.mv.db.upgrade-copy")).doesNotExist();
    }

    @Test
    void aDatabaseOfANewerLeasesyncIsRefusedNamingItsSchemaAndNothingIsChanged() throws Exception {
        Path dir = tmp.resolve("newer");
        Database.openFile(dir).close();
        int newer = SqlDialect.LATEST_CLIENT_MIGRATION + 1;
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("leasesync"), "sa", "");
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE from_the_future (id INT)");
            st.execute(
                    "INSERT INTO \"flyway_schema_history\" (\"installed_rank\", \"version\", \"description\", \"type\","
                            + " \"script\", \"checksum\", \"installed_by\", \"execution_time\", \"success\") VALUES (100, '"
                            + newer
                            + "', 'future', 'SQL', 'V" + newer + "__future.sql', 1, 'sa', 1, TRUE)");
        }
        String before = snapshotPlain(dir);
        Path log = tmp.resolve("newer.log");
        Process p = JavaProcess.start(MigrateMain.class, log, "client", dir.toString(), "0", "0", "30000");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as(out).isEqualTo(1);
        assertThat(out)
                .contains("refused: this data directory (" + dir.toAbsolutePath() + ") was last used by a newer "
                        + "leasesync (schema " + newer + "; this one knows up to schema "
                        + SqlDialect.LATEST_CLIENT_MIGRATION
                        + "); install that version or newer. Nothing was changed.");
        assertThat(snapshotPlain(dir)).isEqualTo(before);
        assertThatThrownBy(() -> Database.openFile(dir)).isInstanceOf(NewerSchemaException.class);
    }

    @Test
    void aServerDataDirOfANewerLeasesyncIsRefusedAndNothingIsChanged() throws Exception {
        Path dir = tmp.resolve("server");
        ServerDatabase.open(dir).close();
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("leasesync-server"), "sa", "");
                Statement st = c.createStatement()) {
            st.execute(
                    "INSERT INTO \"flyway_schema_history\" (\"installed_rank\", \"version\", \"description\", \"type\","
                            + " \"script\", \"checksum\", \"installed_by\", \"execution_time\", \"success\") VALUES (100, '99',"
                            + " 'future', 'SQL', 'V99__future.sql', 1, 'sa', 1, TRUE)");
        }
        assertThatThrownBy(() -> ServerDatabase.open(new ServerDatabaseConfig.H2File(dir), "t"))
                .isInstanceOf(NewerSchemaException.class)
                .hasMessageContaining("was last used by a newer leasesync (schema 99;");
    }

    @Test
    void twoProcessesStartingOnAnOldDirectoryAtOnceMigrateOnceAndBothUseIt() throws Exception {
        for (int round = 0; round < 3; round++) {
            Path dir = tmp.resolve("two-" + round);
            OldSchemas.client(dir, 2);
            Path logA = tmp.resolve("a-" + round + ".log");
            Path logB = tmp.resolve("b-" + round + ".log");
            // every statement is reported; statement 2 pauses 3 s so the other one starts during the migration
            Process a = JavaProcess.start(MigrateMain.class, logA, "client", dir.toString(), "2", "3000", "30000");
            Process b = JavaProcess.start(MigrateMain.class, logB, "client", dir.toString(), "2", "3000", "30000");
            assertThat(a.waitFor(120, TimeUnit.SECONDS) && b.waitFor(120, TimeUnit.SECONDS))
                    .isTrue();
            String outA = Files.readString(logA);
            String outB = Files.readString(logB);
            assertThat(List.of(a.exitValue(), b.exitValue()))
                    .as(outA + "\n---\n" + outB)
                    .containsExactly(0, 0);
            boolean aMigrated = outA.contains("leasesync-migration-statement");
            boolean bMigrated = outB.contains("leasesync-migration-statement");
            assertThat(aMigrated ^ bMigrated)
                    .as("exactly one migrated:%n%s%n---%n%s", outA, outB)
                    .isTrue();
            assertThat(aMigrated ? outB : outA)
                    .as("the other waited for it")
                    .containsPattern("waiting for leasesync process [0-9]+, which is upgrading the local database");
            try (Database db = Database.openFile(dir, Duration.ofSeconds(30))) {
                int edits = db.query("outbox", c -> count(c, "SELECT COUNT(*) FROM outbox"));
                assertThat(edits).isEqualTo(2);
            }
        }
    }

    private static String snapshotPlain(Path dir) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("leasesync"), "sa", "")) {
            return OldSchemas.snapshot(c);
        }
    }

    private static int count(Connection c, String sql) throws java.sql.SQLException {
        try (Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
