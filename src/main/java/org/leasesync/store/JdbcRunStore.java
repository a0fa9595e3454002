package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunOrigin;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.RunStore;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/**
 * The coordinator's writes of runs, triggers, stages and checkpoints in SQL; the reads are
 * {@link JdbcRunHistory}'s, over the same database (and, when bound, the same transaction). Every
 * write of a run goes through {@link JdbcGuard}, so it commits only under the run's current fence.
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

    private static final int MAX_ERROR = 2000;
    private final SqlDatabase db;
    private final JdbcRunHistory history;
    private final JdbcGuard guard;
    private final TimeSource time;
    /** The origin recorded with a run of a key; empty: none is recorded. */
    private final Optional<Function<TaskKey, RunOrigin>> origin;

    private final RunRetention retention;
    private final Optional<DeviceNote> deviceNote;

    /**
     * Stamps run ends on the system's monotonic clock ({@link TimeSource#system()}); records no origin
     * with the runs it starts (it reads every run's).
     */
    public JdbcRunStore(Database db) {
        this(db, TimeSource.system());
    }

    /** @param time whose monotonic clock stamps run ends: the coordinator's, so its tests can move it */
    public JdbcRunStore(Database db, TimeSource time) {
        this(
                db,
                new JdbcGuard(db),
                java.util.Objects.requireNonNull(time, "time"),
                Optional.empty(),
                RunRetention.DEFAULT,
                Optional.empty());
    }

    private JdbcRunStore(
            SqlDatabase db,
            JdbcGuard guard,
            TimeSource time,
            Optional<Function<TaskKey, RunOrigin>> origin,
            RunRetention retention,
            Optional<DeviceNote> deviceNote) {
        this.deviceNote = deviceNote;
        this.db = db;
        this.history = new JdbcRunHistory(db);
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
        java.util.Objects.requireNonNull(origin, "origin");
        return withOrigins(key -> origin);
    }

    /**
     * The same store, recording {@code origins}' answer for the run's key with every run it starts: a
     * process whose accounts sync with different servers records each run's own server.
     *
     * @param origins thread-safe, non-blocking; never null for a key
     */
    public JdbcRunStore withOrigins(Function<TaskKey, RunOrigin> origins) {
        return new JdbcRunStore(
                db,
                guard,
                time,
                Optional.of(java.util.Objects.requireNonNull(origins, "origins")),
                retention,
                deviceNote);
    }

    /**
     * The same store, adding {@code note} to the recovery text of the first run it records per task
     * key — how a data directory that became a device of its own ({@link DeviceIdentity}) says so in
     * the run history.
     */
    public JdbcRunStore withDeviceNote(String note) {
        return new JdbcRunStore(db, guard, time, origin, retention, Optional.of(new DeviceNote(note)));
    }

    /** The same store, pruning run history as {@code retention} says ({@link RunRetention#DEFAULT} otherwise). */
    public JdbcRunStore withRetention(RunRetention retention) {
        return new JdbcRunStore(db, guard, time, origin, retention, deviceNote);
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
        return new JdbcRunStore(one, new JdbcGuard(one), time, origin, retention, deviceNote);
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
        fence.taskKey(); // runs belong to task keys: a job key's fence is refused here, naming the key
        return guard.inTransaction(
                fence,
                what,
                c -> BoundConnection.unwrap(
                        bound -> {
                            SqlDatabase one = new BoundConnection(db, bound);
                            return work.apply(boundTo(one));
                        },
                        c));
    }

    @Override
    public long highestEpoch(TaskKey key) {
        return db.query("read the highest run epoch of " + key, c -> {
            // Not MAX(epoch): H2 answers MIN/MAX from an index only without a WHERE, and would read
            // every run of the key. This is one seek on run_by_key_epoch.
            try (PreparedStatement ps = c.prepareStatement("SELECT epoch FROM run WHERE task_key = ?"
                    + JdbcRunHistory.BY_EPOCH + " FETCH FIRST 1 ROWS ONLY")) {
                ps.setString(1, key.asString());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            }
        });
    }

    @Override
    public void insertRun(
            Fence fence, String runId, TaskSource source, Stage stage, Instant now, Optional<String> recovery) {
        insertRun(fence, runId, source, null, stage, now, recovery);
    }

    @Override
    public void insertRun(
            Fence fence,
            String runId,
            TaskSource source,
            String triggerId,
            Stage stage,
            Instant now,
            Optional<String> given) {
        String key = fence.taskKey().asString(); // runs belong to task keys: a job key is refused, named
        Optional<RunOrigin> from = origin.map(o -> o.apply(fence.taskKey()));
        Optional<String> recovery =
                deviceNote.map(n -> n.addTo(fence.taskKey(), given)).orElse(given);
        guard.inTransaction(fence, "record the start of run " + runId, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO run (" + JdbcRunHistory.RUN_COLUMNS
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
            if (from.isPresent()) {
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO run_origin (run_id, program, server) VALUES (?, ?, ?)")) {
                    ps.setString(1, runId);
                    ps.setString(2, from.get().program());
                    ps.setString(3, from.get().server());
                    ps.executeUpdate();
                }
            }
            RunRowWrites.insertTrigger(c, runId, RunRowWrites.firstTriggerId(c, triggerId), source, false, now);
            RunRowWrites.insertStage(c, runId, stage.wireName(), now);
            return null;
        });
        deviceNote.ifPresent(n -> n.noted(fence.taskKey()));
    }

    @Override
    public void enterStage(Fence fence, String runId, Stage stage, Instant now) {
        fence.taskKey(); // runs belong to task keys: a job key's fence is refused here, naming the key
        guard.inTransaction(fence, "record stage " + stage + " of run " + runId, c -> {
            RunRowWrites.updateStage(c, runId, stage);
            RunRowWrites.insertStage(c, runId, stage.wireName(), now);
            return null;
        });
    }

    @Override
    public void finishRun(Fence fence, String runId, RunStatus status, Optional<String> error, Instant now) {
        if (status == RunStatus.RUNNING) {
            throw new IllegalArgumentException("finishRun needs a final status, got running");
        }
        fence.taskKey(); // runs belong to task keys: a job key's fence is refused here, naming the key
        // Stamped once, so that the end written again after a broken commit is the same end.
        long endedMonoNs = time.monotonicNanos();
        String monoClock = time.monotonicClockId().orElse(null);
        // Sets given values only, so it is written again when its commit broke (the shared file's host
        // process exiting meanwhile): a run that returned must not stay "running" for that.
        guard.inIdempotentTransaction(fence, "record the end of run " + runId, c -> {
            setFinished(c, runId, status, error.orElse(null), now);
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE run SET ended_mono_ns = ?, mono_clock = ? WHERE run_id = ?")) {
                ps.setLong(1, endedMonoNs);
                ps.setString(2, monoClock);
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
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE run SET status = ?, ended_at_ms = ?, error_message = ?"
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
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE run SET status = ?, ended_at_ms = ?, error_message = ? WHERE run_id = ?")) {
            ps.setString(1, status.wireName());
            ps.setLong(2, now.toEpochMilli());
            ps.setString(3, error == null ? null : clip(error));
            ps.setString(4, runId);
            ps.executeUpdate();
        }
    }

    @Override
    public boolean recordMergedTrigger(String runId, TaskSource source, Instant now) {
        return recordMergedTrigger(runId, null, source, now);
    }

    @Override
    public boolean recordMergedTrigger(String runId, String triggerId, TaskSource source, Instant now) {
        return db.transaction("record a trigger merged into run " + runId, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM run WHERE run_id = ?")) {
                ps.setString(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return false;
                    }
                }
            }
            if (triggerId == null) {
                RunRowWrites.insertTrigger(c, runId, null, source, true, now);
                return true;
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO run_trigger (run_id, trigger_id, source, merged,"
                            + " at_ms) SELECT ?, ?, ?, TRUE, ? WHERE NOT EXISTS (SELECT 1 FROM run_trigger WHERE trigger_id = ?)")) {
                ps.setString(1, runId);
                ps.setString(2, triggerId);
                ps.setString(3, source.wireName());
                ps.setLong(4, now.toEpochMilli());
                ps.setString(5, triggerId);
                // two processes inserting the same id at once: the unique index refuses the second, which is the answer
                db.dialect().recoverably(c, x -> ps.executeUpdate());
            } catch (SQLException e) {
                if (!db.dialect().isDuplicateKey(e)) {
                    throw e;
                }
            }
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
        return history.checkpoint(key);
    }

    @Override
    public List<Checkpoint> checkpoints() {
        return history.checkpoints();
    }

    @Override
    public Optional<RunRecord> runningRun(TaskKey key) {
        return history.runningRun(key);
    }

    @Override
    public Optional<RunRecord> lastRun(TaskKey key) {
        return history.lastRun(key);
    }

    @Override
    public Optional<RunRecord> lastSucceeded(TaskKey key) {
        return history.lastSucceeded(key);
    }

    @Override
    public Optional<RunRecord> run(String runId) {
        return history.run(runId);
    }

    @Override
    public List<RunRecord> history(TaskKey key, int limit) {
        return history.history(key, limit);
    }

    @Override
    public List<RunRecord> lastRunPerKey() {
        return history.lastRunPerKey();
    }

    private static String clip(String s) {
        return s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR - 1) + "…";
    }
}
