package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SQL of the statistics behind {@link ServerStats}, kept in the database so that every
 * instance on it reports the same, cluster-wide figures ({@link StatsStore} counts in memory and
 * writes here in the background):
 * <ul>
 *   <li>{@code requests}, {@code pushes}: counters, one row per instance in
 *       {@code instance_counters}, summed;</li>
 *   <li>{@code appliedByChangeId} (and {@code changesApplied}, its sum), counted per
 *       user+scope+change id — where the server de-duplicates — never per change id alone: with
 *       the audit log on, from the audit rows of pushes (a change applied twice in one user+scope
 *       would show as two rows listing it); otherwise from {@code applied_changes}, whose primary
 *       key makes every count 1; both since the last reset;</li>
 *   <li>{@code runOverlaps}: from the run intervals in {@code run_intervals}.</li>
 * </ul>
 * {@link #reset()} zeroes them for the whole cluster. Thread-safe (stateless besides its
 * settings). Every method blocks on the database.
 */
final class StatsTables {

    /** The interval of one run of one user+scope, epoch microseconds; {@code startUs <= endUs}. */
    record RunInterval(long startUs, long endUs) {

        /** The smallest interval covering both. */
        RunInterval union(RunInterval o) {
            return new RunInterval(Math.min(startUs, o.startUs), Math.max(endUs, o.endUs));
        }
    }

    /** A run of one user+scope: the key of {@code run_intervals}. */
    record RunKey(String user, String scope, String runId) {}

    private final ServerDatabase db;
    private final boolean fromAudit;

    /**
     * @param fromAudit true if this instance writes the audit log: per-change-id counts are then
     *     read from it
     */
    StatsTables(ServerDatabase db, boolean fromAudit) {
        this.db = db;
        this.fromAudit = fromAudit;
    }

    /**
     * Deletes the counter rows of earlier instances. Only for a database that has one server at a
     * time (H2), where they are all gone.
     */
    void forgetEarlierInstances() throws SQLException {
        try (Connection c = db.connection();
                Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM instance_counters");
        }
    }

    /** Adds this instance's counter row (zero). Call once at start. */
    void register(long nowMs) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO instance_counters (instance_id, started_at_ms, requests, pushes) VALUES (?, ?, 0, 0)")) {
            ps.setString(1, db.instanceId());
            ps.setLong(2, nowMs);
            ps.executeUpdate();
        }
    }

    /** Adds to this instance's counters. One autocommitted UPDATE. */
    void addCounts(long requests, long pushes) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE instance_counters SET requests = requests + ?, pushes = pushes + ? WHERE instance_id = ?")) {
            ps.setLong(1, requests);
            ps.setLong(2, pushes);
            ps.setString(3, db.instanceId());
            ps.executeUpdate();
        }
    }

    /**
     * Widens the interval of each run to include the given one (inserting it if new). Autocommit:
     * each run is written on its own, and writing one again is harmless (the widening is idempotent).
     */
    void widenRuns(Map<RunKey, RunInterval> runs) throws SQLException {
        try (Connection c = db.connection()) {
            for (Map.Entry<RunKey, RunInterval> e : runs.entrySet()) {
                widenRun(c, e.getKey(), e.getValue());
            }
        }
    }

    private static void widenRun(Connection c, RunKey run, RunInterval interval) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            if (widen(c, run.user(), run.scope(), run.runId(), interval.startUs(), interval.endUs()) > 0) {
                return;
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_intervals"
                    + " (user_id, scope, run_id, start_us, end_us) VALUES (?, ?, ?, ?, ?)")) {
                ps.setString(1, run.user());
                ps.setString(2, run.scope());
                ps.setString(3, run.runId());
                ps.setLong(4, interval.startUs());
                ps.setLong(5, interval.endUs());
                ps.executeUpdate();
                return;
            } catch (SQLException e) {
                // another instance wrote the run's first interval first
                if (!DatabaseErrors.isUniqueViolation(e) || attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    private static int widen(Connection c, String user, String scope, String runId, long start, long end)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE run_intervals SET start_us = LEAST(start_us, ?),"
                + " end_us = GREATEST(end_us, ?) WHERE user_id = ? AND scope = ? AND run_id = ?")) {
            ps.setLong(1, start);
            ps.setLong(2, end);
            ps.setString(3, user);
            ps.setString(4, scope);
            ps.setString(5, runId);
            return ps.executeUpdate();
        }
    }

    /** The figures in the database now, for the whole cluster. */
    ServerStats snapshot() throws SQLException {
        try (Connection c = db.connection()) {
            long requests;
            long pushes;
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT COALESCE(SUM(requests), 0), COALESCE(SUM(pushes), 0) FROM instance_counters")) {
                rs.next();
                requests = rs.getLong(1);
                pushes = rs.getLong(2);
            }
            Map<String, Map<String, Integer>> applied = fromAudit ? appliedFromAudit(c) : appliedFromAppliedChanges(c);
            long changesApplied = applied.values().stream()
                    .flatMap(m -> m.values().stream())
                    .mapToLong(Integer::longValue)
                    .sum();
            return new ServerStats(requests, pushes, changesApplied, applied, overlaps(c));
        }
    }

    /** Per user+scope (the path's), each change id listed as applied by a push since the last reset. */
    private static Map<String, Map<String, Integer>> appliedFromAudit(Connection c) throws SQLException {
        Map<String, Map<String, Integer>> out = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT path_user, scope, applied"
                        + " FROM request_audit WHERE seq > (SELECT audit_after_seq FROM stats_state WHERE id = 1)"
                        + " AND op = 'push' AND LENGTH(applied) > 0")) {
            while (rs.next()) {
                Map<String, Integer> counts = out.computeIfAbsent(
                        ServerStats.taskKey(rs.getString(1), rs.getString(2)), k -> new TreeMap<>());
                for (String id : AuditLog.splitIds(rs.getString(3))) {
                    counts.merge(id, 1, Integer::sum);
                }
            }
        }
        return out;
    }

    private static Map<String, Map<String, Integer>> appliedFromAppliedChanges(Connection c) throws SQLException {
        Map<String, Map<String, Integer>> out = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT user_id, scope, change_id, COUNT(*)"
                        + " FROM applied_changes WHERE stats_generation = (SELECT generation FROM stats_state WHERE id = 1)"
                        + " GROUP BY user_id, scope, change_id")) {
            while (rs.next()) {
                out.computeIfAbsent(ServerStats.taskKey(rs.getString(1), rs.getString(2)), k -> new TreeMap<>())
                        .put(rs.getString(3), rs.getInt(4));
            }
        }
        return out;
    }

    /** Pairs of different runs of one user+scope whose intervals overlap (touching ends do not). */
    private static long overlaps(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM run_intervals a"
                        + " JOIN run_intervals b ON a.user_id = b.user_id AND a.scope = b.scope AND a.run_id < b.run_id"
                        + " WHERE a.start_us < b.end_us AND b.start_us < a.end_us")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Zeroes every figure for the whole cluster: the counters of every instance, the run
     * intervals, and the starting points of the per-change-id counts. One transaction.
     */
    void reset() throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE instance_counters SET requests = 0, pushes = 0");
                s.executeUpdate("DELETE FROM run_intervals");
                s.executeUpdate("UPDATE stats_state SET generation = generation + 1,"
                        + " audit_after_seq = (SELECT COALESCE(MAX(seq), 0) FROM request_audit) WHERE id = 1");
                c.commit();
            } catch (SQLException | RuntimeException e) {
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
        }
    }
}
