package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunHistory;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/**
 * The recorded runs (with their merged triggers, stages and origin) and checkpoints, read from SQL.
 * Unreadable stored text (a stage, status or source this version does not know) is kept as text or
 * shown as the closest known value, so a row never hides the others.
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcRunHistory implements RunHistory {

    static final String RUN_COLUMNS = "run_id, task_key, epoch, owner_id, first_source, started_at_ms,"
            + " ended_at_ms, stage, status, error_message, recovery";
    /**
     * Newest first, in the order of the index {@code run_by_key_epoch} (V9), so that H2 walks the
     * index and stops after the rows asked for instead of reading and sorting every run of the key:
     * H2 does so only when the ORDER BY matches the index from its first column.
     */
    static final String BY_EPOCH = " ORDER BY task_key, epoch DESC, started_at_ms DESC";
    /** The same for one status, index {@code run_by_key_status_epoch} (V9). */
    static final String BY_STATUS_EPOCH = " ORDER BY task_key, status, epoch DESC, started_at_ms DESC";

    private final SqlDatabase db;

    /** Reads {@code db}: a database, or a {@link BoundConnection} to read inside its transaction. */
    public JdbcRunHistory(SqlDatabase db) {
        this.db = java.util.Objects.requireNonNull(db, "db");
    }

    @Override
    public Optional<Checkpoint> checkpoint(TaskKey key) {
        return db.query("read the checkpoint of " + key, c -> readCheckpoint(c, key));
    }

    /** Reads the key's checkpoint on a caller's connection. */
    public static Optional<Checkpoint> readCheckpoint(Connection c, TaskKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(CHECKPOINT_SELECT + " WHERE task_key = ?")) {
            ps.setString(1, key.asString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(mapCheckpoint(rs)) : Optional.empty();
            }
        }
    }

    private static final String CHECKPOINT_SELECT = "SELECT task_key, run_id, epoch, stage, pull_cursor, push_batch_id,"
            + " idempotency_key, push_change_ids, push_sent_at_ms, updated_at_ms FROM checkpoint";

    @Override
    public List<Checkpoint> checkpoints() {
        return db.query("list checkpoints", c -> {
            List<Checkpoint> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                            CHECKPOINT_SELECT + " ORDER BY " + db.dialect().textOrder("task_key"));
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapCheckpoint(rs));
                }
            }
            return out;
        });
    }

    private static Checkpoint mapCheckpoint(ResultSet rs) throws SQLException {
        String changeIds = rs.getString(8);
        long sent = rs.getLong(9);
        boolean sentNull = rs.wasNull();
        return new Checkpoint(
                TaskKey.parse(rs.getString(1)),
                rs.getString(2),
                rs.getLong(3),
                Stage.tryParse(rs.getString(4)),
                rs.getString(4),
                Optional.ofNullable(rs.getString(5)),
                Optional.ofNullable(rs.getString(6)),
                Optional.ofNullable(rs.getString(7)),
                changeIds == null || changeIds.isBlank() ? List.of() : Arrays.asList(changeIds.split(",")),
                sentNull ? Optional.empty() : Optional.of(Instant.ofEpochMilli(sent)),
                Instant.ofEpochMilli(rs.getLong(10)));
    }

    @Override
    public Optional<RunRecord> runningRun(TaskKey key) {
        return first(
                "SELECT " + RUN_COLUMNS + " FROM run WHERE task_key = ? AND status = ?" + BY_STATUS_EPOCH,
                key.asString(),
                RunStatus.RUNNING.wireName());
    }

    @Override
    public Optional<RunRecord> lastRun(TaskKey key) {
        return first("SELECT " + RUN_COLUMNS + " FROM run WHERE task_key = ?" + BY_EPOCH, key.asString());
    }

    @Override
    public Optional<RunRecord> lastSucceeded(TaskKey key) {
        // By epoch, never by the stored end time: runs of one key get ever higher epochs, while their
        // end times are the wall clocks of whichever processes ran them (stepped, or hours apart).
        // (Runs of one key share an epoch only in odd cases; among those the later start wins.)
        return first(
                "SELECT " + RUN_COLUMNS + " FROM run WHERE task_key = ? AND status = ?" + BY_STATUS_EPOCH,
                key.asString(),
                RunStatus.SUCCEEDED.wireName());
    }

    @Override
    public Optional<RunRecord> run(String runId) {
        return first("SELECT " + RUN_COLUMNS + " FROM run WHERE run_id = ?", runId);
    }

    @Override
    public List<RunRecord> history(TaskKey key, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("history limit must be >= 1, got " + limit);
        }
        return list("SELECT " + RUN_COLUMNS + " FROM run WHERE task_key = ?" + BY_EPOCH, limit, key.asString());
    }

    @Override
    public List<RunRecord> lastRunPerKey() {
        return list(
                "SELECT " + RUN_COLUMNS + " FROM run r WHERE NOT EXISTS (SELECT 1 FROM run n WHERE"
                        + " n.task_key = r.task_key AND (n.epoch > r.epoch OR (n.epoch = r.epoch AND n.started_at_ms > r.started_at_ms)))"
                        + " ORDER BY " + db.dialect().textOrder("task_key"),
                Integer.MAX_VALUE);
    }

    private Optional<RunRecord> first(String sql, String... args) {
        List<RunRecord> l = list(sql, 1, args);
        return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
    }

    private List<RunRecord> list(String sql, int limit, String... args) {
        return db.query("read runs", c -> {
            List<RunRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setString(i + 1, args[i]);
                }
                ps.setMaxRows(limit == Integer.MAX_VALUE ? 0 : limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && out.size() < limit) {
                        out.add(mapRun(c, rs));
                    }
                }
            }
            return out;
        });
    }

    private RunRecord mapRun(Connection c, ResultSet rs) throws SQLException {
        String runId = rs.getString(1);
        long ended = rs.getLong(7);
        boolean endedNull = rs.wasNull();
        List<TaskSource> merged = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT source FROM run_trigger WHERE run_id = ? AND merged = TRUE ORDER BY id")) {
            ps.setString(1, runId);
            try (ResultSet t = ps.executeQuery()) {
                while (t.next()) {
                    merged.add(parseSource(t.getString(1)));
                }
            }
        }
        List<RunRecord.StageEntry> stages = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT stage, at_ms FROM run_stage WHERE run_id = ? ORDER BY id")) {
            ps.setString(1, runId);
            try (ResultSet t = ps.executeQuery()) {
                while (t.next()) {
                    stages.add(new RunRecord.StageEntry(t.getString(1), Instant.ofEpochMilli(t.getLong(2))));
                }
            }
        }
        String stageText = rs.getString(8);
        String statusText = rs.getString(9);
        return new RunRecord(
                runId,
                TaskKey.parse(rs.getString(2)),
                rs.getLong(3),
                rs.getString(4),
                parseSource(rs.getString(5)),
                merged,
                Instant.ofEpochMilli(rs.getLong(6)),
                endedNull ? Optional.empty() : Optional.of(Instant.ofEpochMilli(ended)),
                Stage.tryParse(stageText),
                stageText,
                RunStatus.tryParse(statusText),
                statusText,
                Optional.ofNullable(rs.getString(10)),
                Optional.ofNullable(rs.getString(11)),
                stages,
                origin(c, runId));
    }

    /** The run's recorded origin; empty when not recorded (or unreadable: the run is listed regardless). */
    private static Optional<RunOrigin> origin(Connection c, String runId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT program, server FROM run_origin WHERE run_id = ?")) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                try {
                    return Optional.of(new RunOrigin(rs.getString(1), rs.getString(2)));
                } catch (IllegalArgumentException | NullPointerException e) {
                    return Optional.empty();
                }
            }
        }
    }

    private static TaskSource parseSource(String s) {
        try {
            return TaskSource.parse(s);
        } catch (IllegalArgumentException e) {
            return TaskSource.RECOVERY; // unreadable source text: shown as recovery, the run is still listed
        }
    }
}
