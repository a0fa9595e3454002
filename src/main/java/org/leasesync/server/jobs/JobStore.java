package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * SQL for the job tables ({@code job_state}, {@code job_runs}, {@code job_checkpoints}; migration
 * {@code V5__jobs.sql}). No policy lives here: {@link JobRunner} decides, and makes every write
 * through a fenced transaction ({@link org.leasesync.store.JdbcGuard}). Every method runs in the
 * caller's connection (and transaction, if any).
 *
 * <p>Stateless and thread-safe. The SQL is the same on H2 and PostgreSQL.
 */
final class JobStore {

    /** A job's row in {@code job_state}. Nullable fields are null when never set. */
    record State(
            String job, Long lastCompletedSlot, Long lastCompletedAtMs, String holderInstanceId, Long holderEpoch) {}

    /** The checkpoint of a job's unfinished run. */
    record Checkpoint(
            String job, long runId, Long slot, String positionJson, long processed, long epoch, long updatedAtMs) {}

    /** What the scheduler needs each tick: last completed slots, and which jobs have an unfinished run. */
    record Overview(Map<String, Long> lastCompletedSlots, Set<String> checkpointed) {}

    private static final int MAX_DETAIL = 1000;
    private static final String RUN_COLUMNS = "run_id, job_name, slot, run_trigger, instance_id, owner_id, epoch,"
            + " resumed_from, started_at_ms, ended_at_ms, result, processed, detail";

    Overview overview(Connection c) throws SQLException {
        Map<String, Long> slots = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                        "SELECT job_name, last_completed_slot FROM job_state WHERE last_completed_slot IS NOT NULL");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                slots.put(rs.getString(1), rs.getLong(2));
            }
        }
        Set<String> checkpointed = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT job_name FROM job_checkpoints");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                checkpointed.add(rs.getString(1));
            }
        }
        return new Overview(slots, checkpointed);
    }

    Optional<State> state(Connection c, String job) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT last_completed_slot, last_completed_at_ms,"
                + " holder_instance_id, holder_epoch FROM job_state WHERE job_name = ?")) {
            ps.setString(1, job);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new State(
                                job, longOrNull(rs, 1), longOrNull(rs, 2), rs.getString(3), longOrNull(rs, 4)))
                        : Optional.empty();
            }
        }
    }

    Optional<Checkpoint> checkpoint(Connection c, String job) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT run_id, slot, position_json, processed, epoch, updated_at_ms"
                        + " FROM job_checkpoints WHERE job_name = ?")) {
            ps.setString(1, job);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Checkpoint(
                                job,
                                rs.getLong(1),
                                longOrNull(rs, 2),
                                rs.getString(3),
                                rs.getLong(4),
                                rs.getLong(5),
                                rs.getLong(6)))
                        : Optional.empty();
            }
        }
    }

    Optional<JobRun> run(Connection c, long runId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM job_runs WHERE run_id = ?")) {
            ps.setLong(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(readRun(rs)) : Optional.empty();
            }
        }
    }

    /** The job's newest runs, newest first, at most {@code limit}. */
    List<JobRun> lastRuns(Connection c, String job, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM job_runs WHERE job_name = ?"
                + " ORDER BY run_id DESC FETCH FIRST ? ROWS ONLY")) {
            ps.setString(1, job);
            ps.setInt(2, limit);
            List<JobRun> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(readRun(rs));
                }
            }
            return out;
        }
    }

    /** Inserts a run with result {@code running}; returns its id. */
    long insertRun(
            Connection c,
            String job,
            Long slot,
            JobTrigger trigger,
            String instanceId,
            String ownerId,
            long epoch,
            Long resumedFrom,
            long startedAtMs,
            long processed)
            throws SQLException {
        String insert = "INSERT INTO job_runs (job_name, slot, run_trigger, instance_id, owner_id, epoch, resumed_from,"
                + " started_at_ms, result, processed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)";
        // run_id comes back as the insert's generated key (PostgreSQL's driver adds RETURNING)
        try (PreparedStatement ps = c.prepareStatement(insert, new String[] {"run_id"})) {
            ps.setString(1, job);
            setLongOrNull(ps, 2, slot);
            ps.setString(3, trigger.wire());
            ps.setString(4, instanceId);
            ps.setString(5, ownerId);
            ps.setLong(6, epoch);
            setLongOrNull(ps, 7, resumedFrom);
            ps.setLong(8, startedAtMs);
            ps.setLong(9, processed);
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                if (!rs.next()) {
                    throw new SQLException("inserting a run of job " + job + " returned no run_id");
                }
                return rs.getLong(1);
            }
        }
    }

    /** Ends a run that is still {@code running}; returns false if it had ended already. */
    boolean endRun(Connection c, long runId, JobResult result, long endedAtMs, long processed, String detail)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE job_runs SET result = ?, ended_at_ms = ?, processed = ?,"
                + " detail = ? WHERE run_id = ? AND result = 'running'")) {
            ps.setString(1, result.wire());
            ps.setLong(2, endedAtMs);
            ps.setLong(3, processed);
            ps.setString(4, detail == null ? null : truncate(detail));
            ps.setLong(5, runId);
            return ps.executeUpdate() == 1;
        }
    }

    /** Marks a run that is still {@code running} as interrupted, keeping its processed count. */
    boolean interruptRun(Connection c, long runId, long endedAtMs, String detail) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE job_runs SET result = 'interrupted', ended_at_ms = ?,"
                + " detail = ? WHERE run_id = ? AND result = 'running'")) {
            ps.setLong(1, endedAtMs);
            ps.setString(2, truncate(detail));
            ps.setLong(3, runId);
            return ps.executeUpdate() == 1;
        }
    }

    void setRunProcessed(Connection c, long runId, long processed) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE job_runs SET processed = ? WHERE run_id = ?")) {
            ps.setLong(1, processed);
            ps.setLong(2, runId);
            ps.executeUpdate();
        }
    }

    /** Writes the job's checkpoint (replacing any). */
    void writeCheckpoint(Connection c, Checkpoint cp) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE job_checkpoints SET run_id = ?, slot = ?, position_json = ?,"
                        + " processed = ?, epoch = ?, updated_at_ms = ? WHERE job_name = ?")) {
            bindCheckpoint(ps, cp);
            if (ps.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO job_checkpoints (run_id, slot, position_json, processed,"
                        + " epoch, updated_at_ms, job_name) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            bindCheckpoint(ps, cp);
            ps.executeUpdate();
        }
    }

    void deleteCheckpoint(Connection c, String job) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM job_checkpoints WHERE job_name = ?")) {
            ps.setString(1, job);
            ps.executeUpdate();
        }
    }

    /** Records the holder of a grant of the job's lease (creating the job's state row). */
    void recordHolder(Connection c, String job, String instanceId, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE job_state SET holder_instance_id = ?, holder_epoch = ? WHERE job_name = ?")) {
            ps.setString(1, instanceId);
            ps.setLong(2, epoch);
            ps.setString(3, job);
            if (ps.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO job_state (job_name, holder_instance_id, holder_epoch) VALUES (?, ?, ?)")) {
            ps.setString(1, job);
            ps.setString(2, instanceId);
            ps.setLong(3, epoch);
            ps.executeUpdate();
        }
    }

    /** Records that occurrence {@code slot} completed, unless a later one already did. */
    void completeSlot(Connection c, String job, long slot, long atMs) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE job_state SET last_completed_slot = ?, last_completed_at_ms = ?"
                        + " WHERE job_name = ? AND (last_completed_slot IS NULL OR last_completed_slot < ?)")) {
            ps.setLong(1, slot);
            ps.setLong(2, atMs);
            ps.setString(3, job);
            ps.setLong(4, slot);
            ps.executeUpdate();
        }
    }

    /** Deletes the job's runs but its newest {@code keep} ones. */
    void trimRuns(Connection c, String job, int keep) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM job_runs WHERE job_name = ? AND run_id < (SELECT MIN(run_id)"
                        + " FROM (SELECT run_id FROM job_runs WHERE job_name = ? ORDER BY run_id DESC FETCH FIRST ? ROWS ONLY) newest)")) {
            ps.setString(1, job);
            ps.setString(2, job);
            ps.setInt(3, keep);
            ps.executeUpdate();
        }
    }

    private static void bindCheckpoint(PreparedStatement ps, Checkpoint cp) throws SQLException {
        ps.setLong(1, cp.runId());
        setLongOrNull(ps, 2, cp.slot());
        ps.setString(3, cp.positionJson());
        ps.setLong(4, cp.processed());
        ps.setLong(5, cp.epoch());
        ps.setLong(6, cp.updatedAtMs());
        ps.setString(7, cp.job());
    }

    private static JobRun readRun(ResultSet rs) throws SQLException {
        return new JobRun(
                rs.getLong(1),
                rs.getString(2),
                longOrNull(rs, 3),
                JobTrigger.parse(rs.getString(4)),
                rs.getString(5),
                rs.getString(6),
                rs.getLong(7),
                longOrNull(rs, 8),
                rs.getLong(9),
                longOrNull(rs, 10),
                JobResult.parse(rs.getString(11)),
                rs.getLong(12),
                rs.getString(13));
    }

    private static Long longOrNull(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static void setLongOrNull(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, value);
        }
    }

    private static String truncate(String s) {
        return s.length() <= MAX_DETAIL ? s : s.substring(0, MAX_DETAIL - 1) + "…";
    }
}
