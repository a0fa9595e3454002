package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunStatus;

/**
 * Deletes a key's old run history as {@link RunRetention} allows, in one short transaction of
 * bounded size:
 * <ol>
 *   <li>the epoch of the key's {@code keepRuns}-th newest run is the cut-off (fewer runs: nothing to
 *       do) — one index seek ({@code run_by_key_epoch});</li>
 *   <li>if the key's oldest run ended before {@code now - keepFor} (else nothing is due), at most
 *       {@code batchSize} runs below that epoch, ended before {@code now - keepFor}, not running and
 *       not the key's newest successful run, oldest first (walking {@code run_by_key_epoch_asc}, so
 *       the scan stops after the batch), are chosen;</li>
 *   <li>their triggers, stages, origins and the run rows are deleted by id (JDBC batches), and
 *       the key's timer skips older than {@code now - keepFor}, at most {@code batchSize}.</li>
 * </ol>
 * Only rows no run of the key is writing are touched (a running run is never chosen), so it takes no
 * lock a trigger or a run waits for.
 *
 * <p>Thread-safe; blocks on the database.
 */
final class RunHistoryPruner {

    /** Oldest first, in the order of the index {@code run_by_key_epoch_asc} (V9). */
    private static final String OLDEST_FIRST = " ORDER BY task_key, epoch";

    private final SqlDatabase db;
    private final RunRetention retention;

    RunHistoryPruner(SqlDatabase db, RunRetention retention) {
        this.db = Objects.requireNonNull(db, "db");
        this.retention = Objects.requireNonNull(retention, "retention");
    }

    RunRetention retention() {
        return retention;
    }

    /** @return how many runs were deleted (0: nothing was due) */
    int prune(TaskKey key, Instant now) {
        long before = now.minus(retention.keepFor()).toEpochMilli();
        return db.transaction("prune the run history of " + key, c -> {
            List<String> victims = victims(c, key.asString(), before);
            if (!victims.isEmpty()) {
                for (String table : List.of("run_trigger", "run_stage", "run_origin", "run")) {
                    deleteByRunId(c, table, victims);
                }
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM trigger_skip WHERE id IN (SELECT id FROM"
                    + " trigger_skip WHERE task_key = ? AND at_ms < ? ORDER BY at_ms FETCH FIRST ? ROWS ONLY)")) {
                ps.setString(1, key.asString());
                ps.setLong(2, before);
                ps.setInt(3, retention.batchSize());
                ps.executeUpdate();
            }
            return victims.size();
        });
    }

    private List<String> victims(Connection c, String key, long endedBefore) throws SQLException {
        // The oldest run first (one index seek): when even it is not old enough, nothing is due, and
        // the walk below — which would read every run younger than keepFor — is not done.
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT ended_at_ms FROM run WHERE task_key = ?" + OLDEST_FIRST + " FETCH FIRST 1 ROWS ONLY")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return List.of();
                }
                long ended = rs.getLong(1);
                if (!rs.wasNull() && ended >= endedBefore) {
                    return List.of();
                }
            }
        }
        long cutoff;
        try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM run WHERE task_key = ?"
                + JdbcRunHistory.BY_EPOCH + " OFFSET ? ROWS FETCH NEXT 1 ROWS ONLY")) {
            ps.setString(1, key);
            ps.setInt(2, retention.keepRuns() - 1);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return List.of();
                }
                cutoff = rs.getLong(1);
            }
        }
        long newestSucceeded = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM run WHERE task_key = ? AND status = ?"
                + JdbcRunHistory.BY_STATUS_EPOCH + " FETCH FIRST 1 ROWS ONLY")) {
            ps.setString(1, key);
            ps.setString(2, RunStatus.SUCCEEDED.wireName());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    newestSucceeded = rs.getLong(1);
                }
            }
        }
        List<String> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT run_id FROM run WHERE task_key = ? AND epoch < ?"
                + " AND epoch <> ? AND status <> ? AND ended_at_ms IS NOT NULL AND ended_at_ms < ?"
                + OLDEST_FIRST + " FETCH FIRST ? ROWS ONLY")) {
            ps.setString(1, key);
            ps.setLong(2, cutoff);
            ps.setLong(3, newestSucceeded);
            ps.setString(4, RunStatus.RUNNING.wireName());
            ps.setLong(5, endedBefore);
            ps.setInt(6, retention.batchSize());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    private static void deleteByRunId(Connection c, String table, List<String> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE run_id = ?")) {
            for (String id : ids) {
                ps.setString(1, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
