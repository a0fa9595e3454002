package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.leasesync.run.Checkpoint;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.StoreException;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.RunStore;
import org.leasesync.run.Stage;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.TaskSource;
import org.leasesync.lease.TimeSource;

/**
 * Runs, triggers, stages and checkpoints in SQL. Every write of a run goes through
 * {@link JdbcGuard}, so it commits only under the run's current fence.
 *
 * <p>{@link #finishRun} also stamps the run's end on this store's monotonic clock
 * ({@code ended_mono_ns}, {@code mono_clock}: {@link TimeSource#monotonicNanos()} and
 * {@link TimeSource#monotonicClockId()}), in the same statement, so that another process can tell how
 * long ago the key last synced without comparing wall clocks ({@link JdbcRecentSyncs}). A run closed
 * by another holder ({@link #closeAbandonedRun}) gets no stamp: when it ended is unknown.
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcRunStore implements RunStore {

    private static final String RUN_COLUMNS = "run_id, task_key, epoch, owner_id, first_source, started_at_ms,"
            + " ended_at_ms, stage, status, error_message, recovery";
    private static final int MAX_ERROR = 2000;
    /**
     * Newest first, in the order of the index {@code run_by_key_epoch} (V9), so that H2 walks the
     * index and stops after the rows asked for instead of reading and sorting every run of the key:
     * H2 does so only when the ORDER BY matches the index from its first column.
     */
    static final String BY_EPOCH = " ORDER BY task_key, epoch DESC, started_at_ms DESC";
    /** The same for one status, index {@code run_by_key_status_epoch} (V9). */
    static final String BY_STATUS_EPOCH = " ORDER BY task_key, status, epoch DESC, started_at_ms DESC";

    private final SqlDatabase db;
    private final JdbcGuard guard;
    private final TimeSource time;
    private final Optional<RunOrigin> origin;
    private final RunRetention retention;

    /**
     * Stamps run ends on the system's monotonic clock ({@link TimeSource#system()}); records no origin
     * with the runs it starts (it reads every run's).
     */
    public JdbcRunStore(Database db) {
        this(db, TimeSource.system());
    }

    /** @param time whose monotonic clock stamps run ends: the coordinator's, so its tests can move it */
    public JdbcRunStore(Database db, TimeSource time) {
        this(db, new JdbcGuard(db), java.util.Objects.requireNonNull(time, "time"), Optional.empty(),
                RunRetention.DEFAULT);
    }

    private JdbcRunStore(SqlDatabase db, JdbcGuard guard, TimeSource time, Optional<RunOrigin> origin,
                         RunRetention retention) {
        this.db = db;
        this.retention = java.util.Objects.requireNonNull(retention, "retention");
        this.guard = guard;
        this.time = time;
        this.origin = origin;
    }

    /**
     * The same store, recording {@code origin} (this process's program and sync server) with every run
     * it starts, so another process reading the run can tell where it came from.
     */
    public JdbcRunStore withOrigin(RunOrigin origin) {
        return new JdbcRunStore(db, guard, time, Optional.of(origin), retention);
    }

    /** The same store, pruning run history as {@code retention} says ({@link RunRetention#DEFAULT} otherwise). */
    public JdbcRunStore withRetention(RunRetention retention) {
        return new JdbcRunStore(db, guard, time, origin, retention);
    }

    /**
     * Deletes old runs of {@code key} as this store's {@link RunRetention} allows, at most its batch
     * size, in one short transaction of its own. Blocks on the database.
     *
     * @return how many runs were deleted
     * @throws StoreException if the database fails (nothing is deleted)
     */
    @Override
    public int pruneHistory(TaskKey key, Instant now) {
        return new RunHistoryPruner(db, retention).prune(key, now);
    }

    /** Whether this store writes to {@code database} (the same object): a grant there can share its transaction. */
    boolean writesTo(SqlDatabase database) {
        return db == database;
    }

    /** This store over {@code one} (a {@link BoundConnection}): every read and write joins its transaction. */
    JdbcRunStore boundTo(SqlDatabase one) {
        return new JdbcRunStore(one, new JdbcGuard(one), time, origin, retention);
    }

    /** The guarded-write primitive, for other stores writing under a run's fence. */
    public JdbcGuard guard() {
        return guard;
    }

    /**
     * Runs {@code work} against this store bound to one local transaction: the fence is checked and
     * its lease row locked once at the start, every read sees the transaction's own writes, and all
     * writes commit together when {@code work} returns (nothing when it throws). The start of a run
     * (checkpoint read, recovery, run row, first source) is one commit this way instead of several.
     * Blocks on the database.
     *
     * @throws LeaseLostException if the fence is not current (nothing is written)
     * @throws StoreException if the database fails (nothing is written)
     */
    @Override
    public <T> T inOneTransaction(Fence fence, String what, Function<RunStore, T> work) {
        fence.taskKey();   // runs belong to task keys: a job key's fence is refused here, naming the key
        return guard.inTransaction(fence, what, c -> BoundConnection.unwrap(bound -> {
            SqlDatabase one = new BoundConnection(db, bound);
            return work.apply(boundTo(one));
        }, c));
    }

    @Override
    public long highestEpoch(TaskKey key) {
        return db.query("read the highest run epoch of " + key, c -> {
            // Not MAX(epoch): H2 answers MIN/MAX from an index only without a WHERE, and would read
            // every run of the key. This is one seek on run_by_key_epoch.
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT epoch FROM run WHERE task_key = ?" + BY_EPOCH + " FETCH FIRST 1 ROWS ONLY")) {
                ps.setString(1, key.asString());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            }
        });
    }

    @Override
    public void insertRun(Fence fence, String runId, TaskSource source, Stage stage, Instant now,
                          Optional<String> recovery) {
        String key = fence.taskKey().asString();   // runs belong to task keys: a job key is refused, named
        guard.inTransaction(fence, "record the start of run " + runId, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO run (" + RUN_COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, NULL, ?)")) {
                ps.setString(1, runId);
                ps.setString(2, key);
                ps.setLong(3, fence.epoch());
                ps.setString(4, fence.owner().asString());
                ps.setString(5, source.wireName());
                ps.setLong(6, now.toEpochMilli());
                ps.setString(7, stage.wireName());
                ps.setString(8, RunStatus.RUNNING.wireName());
                ps.setString(9, recovery.map(JdbcRunStore::clip).orElse(null));
                ps.executeUpdate();
            }
            if (origin.isPresent()) {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO run_origin (run_id, program, server) VALUES (?, ?, ?)")) {
                    ps.setString(1, runId);
                    ps.setString(2, origin.get().program());
                    ps.setString(3, origin.get().server());
                    ps.executeUpdate();
                }
            }
            insertTrigger(c, runId, source, false, now);
            insertStage(c, runId, stage.wireName(), now);
            return null;
        });
    }

    @Override
    public void enterStage(Fence fence, String runId, Stage stage, Instant now) {
        fence.taskKey();   // runs belong to task keys: a job key's fence is refused here, naming the key
        guard.inTransaction(fence, "record stage " + stage + " of run " + runId, c -> {
            updateStage(c, runId, stage);
            insertStage(c, runId, stage.wireName(), now);
            return null;
        });
    }

    /** Sets the run's current stage inside a caller's guarded transaction (with a checkpoint write). */
    static void updateStage(Connection c, String runId, Stage stage) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE run SET stage = ? WHERE run_id = ?")) {
            ps.setString(1, stage.wireName());
            ps.setString(2, runId);
            ps.executeUpdate();
        }
    }

    @Override
    public void finishRun(Fence fence, String runId, RunStatus status, Optional<String> error, Instant now) {
        if (status == RunStatus.RUNNING) {
            throw new IllegalArgumentException("finishRun needs a final status, got running");
        }
        fence.taskKey();   // runs belong to task keys: a job key's fence is refused here, naming the key
        guard.inTransaction(fence, "record the end of run " + runId, c -> {
            setFinished(c, runId, status, error.orElse(null), now);
            try (PreparedStatement ps = c.prepareStatement("UPDATE run SET ended_mono_ns = ?, mono_clock = ? WHERE run_id = ?")) {
                ps.setLong(1, time.monotonicNanos());
                ps.setString(2, time.monotonicClockId().orElse(null));
                ps.setString(3, runId);
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public boolean closeAbandonedRun(Fence current, String oldRunId, RunStatus status, String note, Instant now) {
        String key = current.taskKey().asString();
        return guard.inTransaction(current, "close interrupted run " + oldRunId, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE run SET status = ?, ended_at_ms = ?, error_message = ?"
                    + " WHERE run_id = ? AND task_key = ? AND status = ?")) {
                ps.setString(1, status.wireName());
                ps.setLong(2, now.toEpochMilli());
                ps.setString(3, clip(note));
                ps.setString(4, oldRunId);
                ps.setString(5, key);
                ps.setString(6, RunStatus.RUNNING.wireName());
                return ps.executeUpdate() == 1;
            }
        });
    }

    private static void setFinished(Connection c, String runId, RunStatus status, String error, Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE run SET status = ?, ended_at_ms = ?, error_message = ? WHERE run_id = ?")) {
            ps.setString(1, status.wireName());
            ps.setLong(2, now.toEpochMilli());
            ps.setString(3, error == null ? null : clip(error));
            ps.setString(4, runId);
            ps.executeUpdate();
        }
    }

    @Override
    public boolean recordMergedTrigger(String runId, TaskSource source, Instant now) {
        return db.transaction("record a trigger merged into run " + runId, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM run WHERE run_id = ?")) {
                ps.setString(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return false;
                    }
                }
            }
            insertTrigger(c, runId, source, true, now);
            return true;
        });
    }

    @Override
    public void saveCheckpoint(Fence fence, Checkpoint cp) {
        guard.inTransaction(fence, "write the checkpoint of " + fence.taskKey(), c -> {
            writeCheckpoint(c, cp);
            return null;
        });
    }

    /** Replaces the key's checkpoint inside a caller's guarded transaction. */
    public static void writeCheckpoint(Connection c, Checkpoint cp) throws SQLException {
        try (PreparedStatement del = c.prepareStatement("DELETE FROM checkpoint WHERE task_key = ?")) {
            del.setString(1, cp.key().asString());
            del.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO checkpoint (task_key, run_id, epoch, stage,"
                + " pull_cursor, push_batch_id, idempotency_key, push_change_ids, push_sent_at_ms, updated_at_ms)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, cp.key().asString());
            ps.setString(2, cp.runId());
            ps.setLong(3, cp.epoch());
            ps.setString(4, cp.stage().map(Stage::wireName).orElse(cp.stageText()));
            ps.setString(5, cp.pullCursor().orElse(null));
            ps.setString(6, cp.pushBatchId().orElse(null));
            ps.setString(7, cp.idempotencyKey().orElse(null));
            ps.setString(8, cp.pushChangeIds().isEmpty() ? null : String.join(",", cp.pushChangeIds()));
            if (cp.pushSentAt().isPresent()) {
                ps.setLong(9, cp.pushSentAt().get().toEpochMilli());
            } else {
                ps.setNull(9, Types.BIGINT);
            }
            ps.setLong(10, cp.updatedAt().toEpochMilli());
            ps.executeUpdate();
        }
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
            try (PreparedStatement ps = c.prepareStatement(CHECKPOINT_SELECT + " ORDER BY "
                    + db.dialect().textOrder("task_key"));
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
        return new Checkpoint(TaskKey.parse(rs.getString(1)), rs.getString(2), rs.getLong(3),
                Stage.tryParse(rs.getString(4)), rs.getString(4), Optional.ofNullable(rs.getString(5)),
                Optional.ofNullable(rs.getString(6)), Optional.ofNullable(rs.getString(7)),
                changeIds == null || changeIds.isBlank() ? List.of() : Arrays.asList(changeIds.split(",")),
                sentNull ? Optional.empty() : Optional.of(Instant.ofEpochMilli(sent)),
                Instant.ofEpochMilli(rs.getLong(10)));
    }

    @Override
    public Optional<RunRecord> runningRun(TaskKey key) {
        return first("SELECT " + RUN_COLUMNS + " FROM run WHERE task_key = ? AND status = ?" + BY_STATUS_EPOCH,
                key.asString(), RunStatus.RUNNING.wireName());
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
        return first("SELECT " + RUN_COLUMNS + " FROM run WHERE task_key = ? AND status = ?" + BY_STATUS_EPOCH,
                key.asString(), RunStatus.SUCCEEDED.wireName());
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
        return list("SELECT " + RUN_COLUMNS + " FROM run r WHERE NOT EXISTS (SELECT 1 FROM run n WHERE"
                + " n.task_key = r.task_key AND (n.epoch > r.epoch OR (n.epoch = r.epoch AND n.started_at_ms > r.started_at_ms)))"
                + " ORDER BY " + db.dialect().textOrder("task_key"), Integer.MAX_VALUE);
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
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT source FROM run_trigger WHERE run_id = ? AND merged = TRUE ORDER BY id")) {
            ps.setString(1, runId);
            try (ResultSet t = ps.executeQuery()) {
                while (t.next()) {
                    merged.add(parseSource(t.getString(1)));
                }
            }
        }
        List<RunRecord.StageEntry> stages = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT stage, at_ms FROM run_stage WHERE run_id = ? ORDER BY id")) {
            ps.setString(1, runId);
            try (ResultSet t = ps.executeQuery()) {
                while (t.next()) {
                    stages.add(new RunRecord.StageEntry(t.getString(1), Instant.ofEpochMilli(t.getLong(2))));
                }
            }
        }
        String stageText = rs.getString(8);
        String statusText = rs.getString(9);
        return new RunRecord(runId, TaskKey.parse(rs.getString(2)), rs.getLong(3), rs.getString(4),
                parseSource(rs.getString(5)), merged, Instant.ofEpochMilli(rs.getLong(6)),
                endedNull ? Optional.empty() : Optional.of(Instant.ofEpochMilli(ended)),
                Stage.tryParse(stageText), stageText, RunStatus.tryParse(statusText), statusText,
                Optional.ofNullable(rs.getString(10)), Optional.ofNullable(rs.getString(11)), stages,
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

    private static void insertTrigger(Connection c, String runId, TaskSource source, boolean merged, Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO run_trigger (run_id, source, merged, at_ms) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, runId);
            ps.setString(2, source.wireName());
            ps.setBoolean(3, merged);
            ps.setLong(4, now.toEpochMilli());
            ps.executeUpdate();
        }
    }

    static void insertStage(Connection c, String runId, String stage, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_stage (run_id, stage, at_ms) VALUES (?, ?, ?)")) {
            ps.setString(1, runId);
            ps.setString(2, stage);
            ps.setLong(3, now.toEpochMilli());
            ps.executeUpdate();
        }
    }

    private static String clip(String s) {
        return s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR - 1) + "…";
    }
}
