package org.leasesync.store;

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
import org.leasesync.registry.StoreException;

/** The start-up check skips its row read only for a file unchanged since a clean close (issue 14 §6). */
class CleanCloseMarkerTest {

    @TempDir
    Path dir;

    private Path fileWithRows(int rows) {
        try (Database db = Database.openFile(dir)) {
            db.transaction("seed", c -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO local_record (user_id, scope, record_id,"
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
        return dir.resolve(Database.FILE_BASE_NAME + ".mv.db");
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
            assertThat(CleanCloseMarker.matches(file)).isFalse();   // H2 has written to it
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
        assertThatThrownBy(() -> DatabaseFileCheck.check(file)).isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");

        // The documented blind spot: bytes changed in place with size and time put back by hand.
        Files.setLastModifiedTime(file, closedAt);
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        assertThat(DatabaseFileCheck.check(file)).isEqualTo(DatabaseFileCheck.Result.INTACT);
        Files.delete(CleanCloseMarker.markerOf(file));
        assertThatThrownBy(() -> DatabaseFileCheck.check(file)).isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        assertThat(DamagedFiles.sha256(file)).isEqualTo(damaged);   // checking never writes
    }

    @Test
    void aMatchingMarkerDoesNotHideAnEndOrHeaderThatNoLongerReadsAsClosed() throws Exception {
        Path file = fileWithRows(2_000);
        FileTime closedAt = Files.getLastModifiedTime(file);
        assertThat(DatabaseFileCheck.check(file)).isEqualTo(DatabaseFileCheck.Result.INTACT);   // the bounded check
        String intact = DamagedFiles.sha256(file);

        // Both store headers overwritten in place, size and time put back: the marker still matches, the
        // bounded check does not pass, so the full structural check runs and refuses the file.
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[8192]), 0);
        }
        Files.setLastModifiedTime(file, closedAt);
        assertThat(CleanCloseMarker.matches(file)).isTrue();
        assertThatThrownBy(() -> DatabaseFileCheck.check(file)).isInstanceOf(StoreException.class)
                .hasMessageContaining("damaged");
        assertThat(DamagedFiles.sha256(file)).isNotEqualTo(intact);
    }

    @Test
    void aFileAnotherProcessMayHaveOpenIsNotTakenAsClosedWhileThisProcessHoldsIt() throws Exception {
        Path file = fileWithRows(10);
        try (Database db = Database.openFile(dir)) {
            // opening writes nothing, so the marker still matches; the file is locked: not checked, in use
            assertThat(CleanCloseMarker.matches(file)).isTrue();
            assertThat(DatabaseFileCheck.check(file)).isEqualTo(DatabaseFileCheck.Result.IN_USE);
            db.query("read", c -> null);
        }
    }
}
