package org.leasesync.store.h2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.sql.PreparedStatement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.StoreException;
import org.leasesync.store.DamagedFiles;
import org.leasesync.store.Database;

/** The start-up check skips its row read only for a file unchanged since a clean close. */
class CleanCloseMarkerTest {

    @TempDir
    Path dir;

    private Path fileWithRows(int rows) {
        try (Database db = Database.openFile(dir)) {
            db.transaction("seed", c -> {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO local_record (user_id, scope, record_id,"
                                + " version, deleted, payload, server_time_ms) VALUES ('alice', 'backup', ?, 1, FALSE, ?, 0)")) {
                    for (int i = 0; i < rows; i++) {
                        ps.setString(1, "r-" + i);
                        ps.setString(2, "{\"n\":" + i + ",\"text\":\"" + "x".repeat(200) + "\"}");
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                return null;
            });
        }
        return dir.resolve(DataDirectory.FILE_BASE_NAME + ".mv.db");
    }

    @Test
    void aCleanCloseIsRecordedAndAnyLaterChangeOfTheFileVoidsIt() throws Exception {
        Path file = fileWithRows(100);
        assertThat(CleanCloseMarker.markerOf(file)).exists();
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        try (Database db = Database.openFile(dir)) {
            // an up-to-date schema is opened without Flyway, so opening alone writes nothing; a write does
            db.transaction("write", c -> {
                try (var st = c.createStatement()) {
                    st.executeUpdate("UPDATE local_record SET version = 2 WHERE record_id = 'r-1'");
                }
                return null;
            });
            assertThat(CleanCloseMarker.matches(file)).isFalse(); // H2 has written to it
            db.query("read", c -> null);
        }
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        Files.write(file, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
        assertThat(CleanCloseMarker.matches(file)).isFalse();
    }

    @Test
    void theRowReadIsSkippedOnlyWhileTheMarkerMatchesAndFindsTheDamageOtherwise() throws Exception {
        Path file = fileWithRows(2_000);
        FileTime closedAt = Files.getLastModifiedTime(file);
        DamagedFiles.OVERWRITTEN_IN_THE_MIDDLE.damage(file);
        String damaged = DamagedFiles.sha256(file);

        // Changed from outside: the marker no longer matches, the full check runs and refuses the file.
        assertThatThrownBy(() -> DatabaseFileCheck.check(file))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");

        // The documented blind spot: bytes changed in place with size and time put back by hand.
        Files.setLastModifiedTime(file, closedAt);
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        assertThat(DatabaseFileCheck.check(file)).isEqualTo(DatabaseFileCheck.Result.INTACT);
        Files.delete(CleanCloseMarker.markerOf(file));
        assertThatThrownBy(() -> DatabaseFileCheck.check(file))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        assertThat(DamagedFiles.sha256(file)).isEqualTo(damaged); // checking never writes
    }

    @Test
    void aMatchingMarkerDoesNotHideAnEndOrHeaderThatNoLongerReadsAsClosed() throws Exception {
        Path file = fileWithRows(2_000);
        FileTime closedAt = Files.getLastModifiedTime(file);
        assertThat(DatabaseFileCheck.check(file)).isEqualTo(DatabaseFileCheck.Result.INTACT); // the bounded check
        String intact = DamagedFiles.sha256(file);

        // Both store headers overwritten in place, size and time put back: the marker still matches, the
        // bounded check does not pass, so the full structural check runs and refuses the file.
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[8192]), 0);
        }
        Files.setLastModifiedTime(file, closedAt);
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        assertThatThrownBy(() -> DatabaseFileCheck.check(file))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        assertThat(DamagedFiles.sha256(file)).isNotEqualTo(intact);
    }

    @Test
    void aFileAnotherProcessMayHaveOpenIsNotTakenAsClosedWhileThisProcessHoldsIt() throws Exception {
        Path file = fileWithRows(10);
        try (Database db = Database.openFile(dir)) {
            // the marker is removed at the open, before H2 may write; the file is locked: not checked, in use
            assertThat(CleanCloseMarker.markerOf(file)).doesNotExist();
            assertThat(DatabaseFileCheck.check(file)).isEqualTo(DatabaseFileCheck.Result.IN_USE);
            db.query("read", c -> null);
        }
        assertThat(CleanCloseMarker.matches(file)).isTrue();
    }

    /**
     * Review finding: the marker recorded a symbolic link's own identity, which no write through the
     * link changes, so after one clean close every start — after crashes too — skipped the full check.
     */
    @Test
    void aChangeOfASymlinkedFilesTargetVoidsTheMarker() throws Exception {
        Path file = fileWithRows(2_000);
        Path elsewhere = Files.createDirectories(dir.resolve("disk2")).resolve("leasesync.mv.db");
        Files.move(file, elsewhere);
        Files.createSymbolicLink(file, elsewhere);
        try (Database db = Database.openFile(dir)) {
            db.query("read", c -> null);
        }
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        DamagedFiles.OVERWRITTEN_IN_THE_MIDDLE.damage(elsewhere);
        assertThat(CleanCloseMarker.matches(file)).isFalse();
        assertThatThrownBy(() -> DatabaseFileCheck.check(file))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
    }

    /**
     * Review finding: a session whose read found the file damaged still recorded a clean close, so the
     * next start skipped the full check and called the file intact.
     */
    @Test
    void aSessionThatFoundTheFileDamagedDoesNotRecordACleanClose() throws Exception {
        Path file = fileWithRows(2_000);
        long liveBlock = DamagedFiles.middleBlockOfLiveData(file);
        try (Database db = Database.openFile(dir)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                byte[] junk = new byte[4096];
                java.util.Arrays.fill(junk, (byte) 0x5a);
                ch.write(ByteBuffer.wrap(junk), liveBlock * 4096);
            }
            assertThatThrownBy(() -> db.query("read every record", c -> {
                        try (var st = c.createStatement();
                                var rs = st.executeQuery("SELECT * FROM local_record")) {
                            while (rs.next()) {
                                rs.getString("payload");
                            }
                        }
                        return null;
                    }))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("the file is damaged");
        }
        assertThat(CleanCloseMarker.markerOf(file)).doesNotExist();
        assertThatThrownBy(() -> DatabaseFileCheck.check(file))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
    }

    /**
     * Review finding: the bounded check did not read the newest chunk beyond its header line. With its
     * pages overwritten in place (size and time put back, so the marker matches) the file must still be
     * refused as damaged — by the check or by H2's own open right after it — and left as it was.
     */
    @Test
    void theNewestChunkDamagedInPlaceIsStillReportedAsDamageWhileTheMarkerMatches() throws Exception {
        Path file = fileWithRows(2_000);
        FileTime closedAt = Files.getLastModifiedTime(file);
        damageNewestChunkPages(file);
        Files.setLastModifiedTime(file, closedAt);
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        String damaged = DamagedFiles.sha256(file);
        assertThatThrownBy(() -> Database.openFile(dir).close())
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        assertThat(DamagedFiles.sha256(file)).isEqualTo(damaged);
    }

    /** Overwrites the newest chunk's pages, keeping its header line and its footer. */
    private static void damageNewestChunkPages(Path file) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            java.util.Map<String, String> newest = null;
            for (int h = 0; h < 2; h++) {
                ByteBuffer b = ByteBuffer.allocate(4096);
                ch.read(b, h * 4096L);
                java.util.Map<String, String> m = DatabaseFileCheck.checksummed(b.array());
                if (m != null
                        && (newest == null
                                || Long.parseLong(m.get("version"), 16) > Long.parseLong(newest.get("version"), 16))) {
                    newest = m;
                }
            }
            long block = Long.parseLong(newest.get("block"), 16);
            ByteBuffer hb = ByteBuffer.allocate(1024);
            ch.read(hb, block * 4096);
            java.util.Map<String, String> chunk = DatabaseFileCheck.chunkHeader(hb.array());
            long len = Long.parseLong(chunk.get("len"), 16);
            int headerLine = new String(hb.array(), java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\n') + 1;
            long from = block * 4096 + headerLine;
            long to = (block + len) * 4096 - 128;
            byte[] junk = new byte[(int) (to - from)];
            java.util.Arrays.fill(junk, (byte) 0x5a);
            ch.write(ByteBuffer.wrap(junk), from);
        }
    }
}
