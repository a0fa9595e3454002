package org.leasesync.store.h2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.StoreException;
import org.leasesync.store.Database;
import org.leasesync.store.SqlDialect;
import org.leasesync.testing.ProcessTest;

/**
 * A first start killed before the schema was ready (found by a break-it trial: {@code kill -9} within
 * ~100 ms of creating the file, or during the first migrations) left a data directory refused for
 * good — "damaged … restore it from a backup", or a failed Flyway migration on every open — though
 * nothing of the user's was ever in it. Such a file is now set aside and the database created again;
 * any other file is judged as before.
 */
@ProcessTest
class UnfinishedCreationTest {

    @TempDir
    Path tmp;

    static OwnerId deadProcess() throws Exception {
        OwnerId me = OwnerId.forCurrentProcess();
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new OwnerId(me.host(), ended.pid(), me.start(), "abc");
    }

    static void marker(Path dir, OwnerId creator) throws Exception {
        Properties p = new Properties();
        p.setProperty("creator", creator.asString());
        try (var out = Files.newOutputStream(dir.resolve(UnfinishedCreation.MARKER))) {
            p.store(out, null);
        }
    }

    /** The first 4 KiB of a freshly created database: what a kill a few milliseconds into the first start leaves. */
    byte[] cutOffNewFile() throws Exception {
        Path fresh = tmp.resolve("fresh");
        Database.openFile(fresh).close();
        byte[] all = Files.readAllBytes(fresh.resolve("leasesync.mv.db"));
        return Arrays.copyOf(all, 4096);
    }

    static int migrations(Database db) throws Exception {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM \"flyway_schema_history\""
                        + " WHERE \"success\" AND \"version\" IS NOT NULL")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aFinishedCreationLeavesNoMarker() throws Exception {
        Path dir = tmp.resolve("data");
        try (Database db = Database.openFile(dir)) {
            assertThat(migrations(db)).isEqualTo(SqlDialect.LATEST_CLIENT_MIGRATION);
        }
        assertThat(dir.resolve(UnfinishedCreation.MARKER)).doesNotExist();
    }

    @Test
    void aCutOffNewFileWhoseCreatorDiedIsSetAsideAndCreatedAgain() throws Exception {
        byte[] cut = cutOffNewFile();
        Path dir = Files.createDirectories(tmp.resolve("data"));
        Files.write(dir.resolve("leasesync.mv.db"), cut);
        marker(dir, deadProcess());
        try (Database db = Database.openFile(dir)) {
            assertThat(migrations(db)).isEqualTo(SqlDialect.LATEST_CLIENT_MIGRATION);
        }
        assertThat(Files.readAllBytes(dir.resolve("leasesync.mv.db.unfinished")))
                .as("kept, as it was")
                .isEqualTo(cut);
        assertThat(dir.resolve(UnfinishedCreation.MARKER)).doesNotExist();
    }

    @Test
    void withoutAMarkerOrWithALiveCreatorTheSameFileIsStillRefusedAndUntouched() throws Exception {
        byte[] cut = cutOffNewFile();
        Path dir = Files.createDirectories(tmp.resolve("data"));
        Files.write(dir.resolve("leasesync.mv.db"), cut);
        assertThatThrownBy(() -> Database.openFile(dir))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        marker(dir, OwnerId.forCurrentProcess()); // a creator that may still be at work
        assertThatThrownBy(() -> Database.openFile(dir))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        assertThat(Files.readAllBytes(dir.resolve("leasesync.mv.db"))).isEqualTo(cut);
        assertThat(dir.resolve("leasesync.mv.db.unfinished")).doesNotExist();
    }

    @Test
    void aFirstMigrationCutShortByTheCreatorsDeathIsRedoneOnAFreshFile() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("data"));
        // half of V1 applied (H2's DDL is not transactional), no schema history: Flyway fails on "already exists"
        try (Connection c = DriverManager.getConnection(DataDirectory.fileUrl(dir), "sa", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE lease (task_key VARCHAR(200) PRIMARY KEY)");
        }
        marker(dir, deadProcess());
        try (Database db = Database.openFile(dir)) {
            assertThat(migrations(db)).isEqualTo(SqlDialect.LATEST_CLIENT_MIGRATION);
        }
        assertThat(dir.resolve("leasesync.mv.db.unfinished")).exists();
    }
}
