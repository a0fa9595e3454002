package org.leasesync.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.leasesync.testing.Postgres;

/**
 * The job bench's reads and writes of a server database's job tables ({@code job_state},
 * {@code job_runs}, {@code job_checkpoints}, {@code lease}; docs/reference-server.md, "Jobs"),
 * over one connection of its own. Not thread-safe.
 */
final class JobTables implements AutoCloseable {

    /** A run that committed its first batch and paused ({@code --job-pause}). */
    record PausedRun(long runId, long epoch, String instanceId, String ownerId) {}

    /** A job's lease row: its owner (null when free) and when it was last renewed (epoch ms). */
    record LeaseRow(String owner, long renewedAtMs) {}

    /** A finished takeover run. */
    record Takeover(long runId, String instanceId, long epoch, long startedAtMs, String result, long processed) {}

    private static final long POLL_MS = 100;

    private final String url;
    private final Connection c;

    /** @param url a PostgreSQL URL without credentials (as {@code serve --db} takes it) */
    JobTables(String url) throws SQLException {
        this.url = url;
        this.c = DriverManager.getConnection(url, Postgres.USER, Postgres.PASSWORD);
    }

    String url() {
        return url;
    }

    /** Waits until every job in {@code jobs} has completed its occurrence {@code slot} or a later one. */
    void awaitCompletedSlots(List<String> jobs, long slot, Duration timeout) throws Exception {
        await("occurrence " + slot + " of " + jobs + " completed", timeout, () -> {
            for (String job : jobs) {
                Long last = single("SELECT last_completed_slot FROM job_state WHERE job_name = ?", job);
                if (last == null || last < slot) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Per slot firstSlot..lastSlot of {@code job}: the start (epoch ms) of its first scheduled run. */
    TreeMap<Long, Long> firstScheduledStarts(String job, long firstSlot, long lastSlot) throws SQLException {
        TreeMap<Long, Long> out = new TreeMap<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT slot, MIN(started_at_ms) FROM job_runs WHERE job_name = ?"
                        + " AND run_trigger = 'schedule' AND slot BETWEEN ? AND ? GROUP BY slot")) {
            ps.setString(1, job);
            ps.setLong(2, firstSlot);
            ps.setLong(3, lastSlot);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    /** Fails if an occurrence completed twice, or two runs of one job share an epoch or go back in epoch. */
    void checkOneRunPerOccurrenceAndEpoch() throws SQLException {
        List<String> twice = strings("SELECT job_name || ' slot ' || slot FROM job_runs WHERE result = 'ok'"
                + " AND slot IS NOT NULL GROUP BY job_name, slot HAVING COUNT(*) > 1");
        if (!twice.isEmpty()) {
            throw new IllegalStateException("occurrences completed twice: " + twice);
        }
        List<String> backwards = strings("SELECT a.job_name || ' runs ' || a.run_id || ', ' || b.run_id FROM job_runs a"
                + " JOIN job_runs b ON a.job_name = b.job_name AND a.run_id < b.run_id AND a.epoch >= b.epoch");
        if (!backwards.isEmpty()) {
            throw new IllegalStateException(
                    "runs of one job under one epoch, or a later run with a lower epoch: " + backwards);
        }
    }

    /** Inserts {@code n} audit rows stamped {@code atMs}. */
    void seedOldAuditRows(int n, long atMs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO request_audit (at_ms, path_user, scope, op, status,"
                + " applied, duplicates, conflicts) VALUES (?, 'alice', 'backup', 'pull', 200, '', '', '')")) {
            for (int i = 0; i < n; i++) {
                ps.setLong(1, atMs);
                ps.executeUpdate();
            }
        }
    }

    /**
     * Waits for a run of {@code job} that is running with one row processed (paused after its first
     * batch). Empty when, instead, the job finished elsewhere first: no audit row is left and no
     * checkpoint either — the victim lost its lease before its first batch committed (a stall longer
     * than the TTL on a loaded machine) and a taker resumed its checkpoint and ran it to the end.
     */
    Optional<PausedRun> awaitPausedRun(String job, Duration timeout) throws Exception {
        PausedRun[] found = new PausedRun[1];
        boolean[] finishedElsewhere = new boolean[1];
        await("a paused run of " + job, timeout, () -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT r.run_id, r.epoch, r.instance_id, r.owner_id FROM"
                    + " job_runs r JOIN job_checkpoints k ON k.run_id = r.run_id WHERE r.job_name = ?"
                    + " AND r.result = 'running' AND k.processed = 1")) {
                ps.setString(1, job);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        found[0] = new PausedRun(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4));
                    }
                }
            }
            if (found[0] == null) {
                finishedElsewhere[0] = single("SELECT COUNT(*) FROM request_audit") == 0
                        && single("SELECT COUNT(*) FROM job_checkpoints WHERE job_name = ?", job) == 0;
            }
            return found[0] != null || finishedElsewhere[0];
        });
        return Optional.ofNullable(found[0]);
    }

    /** The owner of a lease key; empty when free or never granted. */
    Optional<String> leaseOwner(String key) throws SQLException {
        return Optional.ofNullable(lease(key).owner());
    }

    /** A lease key's row. */
    LeaseRow lease(String key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT owner_id, renewed_at_ms FROM lease WHERE task_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no lease row for " + key);
                }
                return new LeaseRow(rs.getString(1), rs.getLong(2));
            }
        }
    }

    /** Waits for the takeover run that resumed {@code runId} to end; fails unless it ended ok. */
    Takeover awaitTakeover(String job, long runId, Duration timeout) throws Exception {
        Takeover[] found = new Takeover[1];
        await("the takeover of run " + runId + " of " + job + " to end", timeout, () -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT run_id, instance_id, epoch, started_at_ms, result,"
                            + " processed FROM job_runs WHERE job_name = ? AND run_trigger = 'takeover' AND resumed_from = ?")) {
                ps.setString(1, job);
                ps.setLong(2, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        found[0] = new Takeover(
                                rs.getLong(1),
                                rs.getString(2),
                                rs.getLong(3),
                                rs.getLong(4),
                                rs.getString(5),
                                rs.getLong(6));
                    }
                }
            }
            return found[0] != null && !found[0].result().equals("running");
        });
        if (!found[0].result().equals("ok")) {
            throw new IllegalStateException(
                    "the takeover of run " + runId + " of " + job + " did not end ok: " + found[0]);
        }
        return found[0];
    }

    /** Fails unless the killed run is marked interrupted, no checkpoint is left and every audit row is gone. */
    void checkResumedCleanly(String job, long killedRunId) throws SQLException {
        String killed = stringValue("SELECT result FROM job_runs WHERE run_id = ?", killedRunId);
        Long checkpoints = single("SELECT COUNT(*) FROM job_checkpoints WHERE job_name = ?", job);
        Long audit = single("SELECT COUNT(*) FROM request_audit");
        if (!"interrupted".equals(killed) || checkpoints != 0 || audit != 0) {
            throw new IllegalStateException("after the takeover of run " + killedRunId + ": its result " + killed + ", "
                    + checkpoints + " checkpoints left, " + audit + " audit rows left");
        }
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(String what, Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(POLL_MS);
        }
    }

    private Long single(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(sql, params);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
        }
    }

    private String stringValue(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(sql, params);
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private List<String> strings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private PreparedStatement prepare(String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i]);
        }
        return ps;
    }

    @Override
    public void close() throws SQLException {
        c.close();
    }
}
