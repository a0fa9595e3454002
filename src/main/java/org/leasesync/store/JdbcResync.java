package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.ResyncSummary;

/**
 * The SQL of a full download after the server refused the cursor (tables {@code resync} and
 * {@code resync_previous}; docs/architecture.md, "When the server's data goes back"):
 * <ol>
 *   <li>{@link #start}: unless a download is already under way, note why and the highest outbox seq,
 *       and keep a copy of the local records; then drop the records and the push position;</li>
 *   <li>the pull applies pages from the beginning as usual (a crash midway resumes from the
 *       checkpoint's cursor; the copy stays);</li>
 *   <li>{@link #finish}: count records removed, changed and new against the copy; make a conflict of
 *       each pending edit made before the download whose base version the server now holds with
 *       other content than this device had (a version number given again after a restore: pushing
 *       the edit would silently overwrite that content); drop the copy.</li>
 * </ol>
 * Stateless and thread-safe; every method runs in the caller's (guarded) transaction.
 */
final class JdbcResync {

    /** What {@link #finish} found and did. */
    record Finished(ResyncSummary summary, Set<String> newConflicts) {}

    /**
     * The copy's row {@code p} and the downloaded row {@code l} (both present) hold the same state: same
     * version and deletion, and the same content unless deleted (who made it does not matter). False
     * when {@code l} is absent (its columns are then null: {@code NOT NULL} columns otherwise).
     */
    private static final String SAME = "l.record_id IS NOT NULL AND p.record_id IS NOT NULL AND p.version = l.version"
            + " AND p.deleted = l.deleted AND (p.deleted OR p.payload = l.payload)";

    private JdbcResync() {}

    /** Step 1. {@code reason} is the server's ({@code ""} when it gave none). */
    static void start(Connection c, TaskKey key, String reason, long nowMs) throws SQLException {
        if (!underWay(c, key)) {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO resync (user_id, scope, reason, started_at_ms,"
                            + " outbox_seq_before) SELECT ?, ?, ?, ?, COALESCE(MAX(seq), 0) FROM outbox WHERE user_id = ? AND scope = ?")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, reason.length() > 40 ? reason.substring(0, 40) : reason);
                ps.setLong(4, nowMs);
                JdbcLocalData.bindKey(ps, 5, key);
                ps.executeUpdate();
            }
            update(
                    c,
                    "INSERT INTO resync_previous (user_id, scope, record_id, version, deleted, payload, own_edit_base)"
                            + " SELECT user_id, scope, record_id, version, deleted, payload, own_edit_base FROM local_record"
                            + " WHERE user_id = ? AND scope = ?",
                    key);
        }
        update(c, "DELETE FROM local_record WHERE user_id = ? AND scope = ?", key);
        update(c, "DELETE FROM push_position WHERE user_id = ? AND scope = ?", key);
    }

    /** Step 3; empty if no download was under way. */
    static Optional<Finished> finish(Connection c, TaskKey key) throws SQLException {
        String reason;
        long outboxBefore;
        try (PreparedStatement ps =
                c.prepareStatement("SELECT reason, outbox_seq_before FROM resync WHERE user_id = ? AND scope = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                reason = rs.getString(1);
                outboxBefore = rs.getLong(2);
            }
        }
        int[] counts = counts(c, key);
        int removed = counts[0];
        int changed = counts[1];
        int added = counts[2];
        int lostOwn = counts[3];
        Set<String> conflicts = markReissuedBases(c, key, outboxBefore);
        int kept;
        try (PreparedStatement ps =
                c.prepareStatement("SELECT COUNT(*) FROM outbox WHERE user_id = ? AND scope = ? AND seq <= ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setLong(3, outboxBefore);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                kept = rs.getInt(1);
            }
        }
        update(c, "DELETE FROM resync_previous WHERE user_id = ? AND scope = ?", key);
        update(c, "DELETE FROM resync WHERE user_id = ? AND scope = ?", key);
        return Optional.of(new Finished(
                new ResyncSummary(reason, removed, changed, added, lostOwn, kept, conflicts.size()), conflicts));
    }

    /** Whether a full download of {@code key} is under way (begun and not finished). */
    static boolean underWay(Connection c, TaskKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM resync WHERE user_id = ? AND scope = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Removed, changed, new, and own edits lost: the copy ({@code p}) against the downloaded records
     * ({@code l}), counted by the database in two joins on the primary key, so the memory used does
     * not grow with the number of records.
     * A record gone or deleted now that was alive is removed; alive in both with
     * another version or content is changed; alive now and absent or deleted before is new; an own
     * edit is lost unless the record has the same version, deletion and (when alive) content.
     */
    private static int[] counts(Connection c, TaskKey key) throws SQLException {
        int[] out = new int[4];
        try (PreparedStatement ps = c.prepareStatement("SELECT"
                + " COALESCE(SUM(CASE WHEN NOT p.deleted AND (l.record_id IS NULL OR l.deleted) THEN 1 ELSE 0 END), 0),"
                + " COALESCE(SUM(CASE WHEN NOT p.deleted AND l.record_id IS NOT NULL AND NOT l.deleted"
                + "   AND (p.version <> l.version OR p.payload <> l.payload) THEN 1 ELSE 0 END), 0),"
                + " COALESCE(SUM(CASE WHEN p.own_edit_base IS NOT NULL AND NOT (" + SAME + ") THEN 1 ELSE 0 END), 0)"
                + " FROM resync_previous p LEFT JOIN local_record l"
                + " ON l.user_id = p.user_id AND l.scope = p.scope AND l.record_id = p.record_id"
                + " WHERE p.user_id = ? AND p.scope = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                out[0] = rs.getInt(1);
                out[1] = rs.getInt(2);
                out[3] = rs.getInt(3);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM local_record l LEFT JOIN resync_previous p"
                + " ON p.user_id = l.user_id AND p.scope = l.scope AND p.record_id = l.record_id"
                + " WHERE l.user_id = ? AND l.scope = ? AND NOT l.deleted AND (p.record_id IS NULL OR p.deleted)")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                out[2] = rs.getInt(1);
            }
        }
        return out;
    }

    /**
     * Pending edits made before the download, based on a version the server now holds with other
     * content than this device had at that version (or had not at all): each becomes a conflict with
     * the server's current state, so the user decides instead of the push overwriting it. Reads only
     * the pending edits that qualify (joined with their record's two states in the database).
     */
    private static Set<String> markReissuedBases(Connection c, TaskKey key, long outboxBefore) throws SQLException {
        Map<String, String> recordOf = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT o.change_id, o.record_id FROM outbox o"
                + " JOIN local_record l ON l.user_id = o.user_id AND l.scope = o.scope AND l.record_id = o.record_id"
                + " LEFT JOIN resync_previous p ON p.user_id = o.user_id AND p.scope = o.scope AND p.record_id = o.record_id"
                + " WHERE o.user_id = ? AND o.scope = ? AND o.state = 'pending' AND o.seq <= ? AND o.base_version > 0"
                + " AND l.version = o.base_version AND NOT (" + SAME + ") ORDER BY o.seq")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setLong(3, outboxBefore);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    recordOf.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        for (Map.Entry<String, String> e : recordOf.entrySet()) {
            conflictWithLocalRecord(c, key, e.getKey(), e.getValue());
        }
        return new LinkedHashSet<>(recordOf.keySet());
    }

    private static void conflictWithLocalRecord(Connection c, TaskKey key, String changeId, String recordId)
            throws SQLException {
        long version;
        boolean deleted;
        String payload;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT version, deleted, payload FROM local_record WHERE user_id = ? AND scope = ? AND record_id = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, recordId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                version = rs.getLong(1);
                deleted = rs.getBoolean(2);
                payload = rs.getString(3);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'conflict', server_version = ?,"
                + " server_deleted = ?, server_payload = ? WHERE user_id = ? AND scope = ? AND change_id = ?")) {
            ps.setLong(1, version);
            ps.setBoolean(2, deleted);
            ps.setString(3, deleted ? "{}" : payload);
            JdbcLocalData.bindKey(ps, 4, key);
            ps.setString(6, changeId);
            ps.executeUpdate();
        }
    }

    private static void update(Connection c, String sql, TaskKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.executeUpdate();
        }
    }
}
