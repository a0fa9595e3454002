package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/**
 * The single-row writes of a run's trigger and stage rows ({@code run_trigger}, {@code run_stage},
 * the run's current stage), inside a connection the caller already holds in a guarded transaction:
 * {@link JdbcRunStore} composes them into its fenced writes of a run. They are plain statements, apart
 * from the rule for a trigger recorded once ({@link #firstTriggerId}); kept here so that the store
 * reads as what each write of a run does, not how each row is put.
 *
 * <p>Stateless; each method blocks on {@code c} and throws what the driver throws.
 */
final class RunRowWrites {

    private RunRowWrites() {}

    /** Sets the run's current stage inside a caller's guarded transaction (with a checkpoint write). */
    static void updateStage(Connection c, String runId, Stage stage) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE run SET stage = ? WHERE run_id = ?")) {
            ps.setString(1, stage.wireName());
            ps.setString(2, runId);
            ps.executeUpdate();
        }
    }

    /**
     * The id a new run's first trigger row carries. A trigger is recorded once: its merge into an
     * earlier run (it joined, asked again and got the key) moves to the run that answers it. Were it
     * already the first trigger of another run (a repeated start after a broken connection), that
     * run keeps the id and this row has none.
     */
    static String firstTriggerId(Connection c, String triggerId) throws SQLException {
        if (triggerId == null) {
            return null;
        }
        try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM run_trigger WHERE trigger_id = ? AND merged = TRUE")) {
            ps.setString(1, triggerId);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM run_trigger WHERE trigger_id = ?")) {
            ps.setString(1, triggerId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? null : triggerId;
            }
        }
    }

    static void insertTrigger(
            Connection c, String runId, String triggerId, TaskSource source, boolean merged, Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO run_trigger (run_id, trigger_id, source, merged, at_ms) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, runId);
            ps.setString(2, triggerId);
            ps.setString(3, source.wireName());
            ps.setBoolean(4, merged);
            ps.setLong(5, now.toEpochMilli());
            ps.executeUpdate();
        }
    }

    static void insertStage(Connection c, String runId, String stage, Instant now) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO run_stage (run_id, stage, at_ms) VALUES (?, ?, ?)")) {
            ps.setString(1, runId);
            ps.setString(2, stage);
            ps.setLong(3, now.toEpochMilli());
            ps.executeUpdate();
        }
    }
}
