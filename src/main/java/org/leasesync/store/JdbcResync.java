package org.leasesync.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.leasesync.registry.TaskKey;
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
    record Finished(ResyncSummary summary, Set<String> newConflicts) {
    }

    /** A record's state, its payload as a digest; {@code ownEdit}: this device's own edit made it. */
    private record State(long version, boolean deleted, String digest, boolean ownEdit) {
        /** Same version and content (who made it does not matter). */
        boolean sameAs(State other) {
            return other != null && version == other.version && deleted == other.deleted && digest.equals(other.digest);
        }
    }

    private JdbcResync() {
    }

    /** Step 1. {@code reason} is the server's ({@code ""} when it gave none). */
    static void start(Connection c, TaskKey key, String reason, long nowMs) throws SQLException {
        if (!underWay(c, key)) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO resync (user_id, scope, reason, started_at_ms,"
                    + " outbox_seq_before) SELECT ?, ?, ?, ?, COALESCE(MAX(seq), 0) FROM outbox WHERE user_id = ? AND scope = ?")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, reason.length() > 40 ? reason.substring(0, 40) : reason);
                ps.setLong(4, nowMs);
                JdbcLocalData.bindKey(ps, 5, key);
                ps.executeUpdate();
            }
            update(c, "INSERT INTO resync_previous (user_id, scope, record_id, version, deleted, payload, own_edit_base)"
                    + " SELECT user_id, scope, record_id, version, deleted, payload, own_edit_base FROM local_record"
                    + " WHERE user_id = ? AND scope = ?", key);
        }
        update(c, "DELETE FROM local_record WHERE user_id = ? AND scope = ?", key);
        update(c, "DELETE FROM push_position WHERE user_id = ? AND scope = ?", key);
    }

    /** Step 3; empty if no download was under way. */
    static Optional<Finished> finish(Connection c, TaskKey key) throws SQLException {
        String reason;
        long outboxBefore;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT reason, outbox_seq_before FROM resync WHERE user_id = ? AND scope = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                reason = rs.getString(1);
                outboxBefore = rs.getLong(2);
            }
        }
        Map<String, State> before = states(c, "resync_previous", key);
        Map<String, State> now = states(c, "local_record", key);
        int removed = 0;
        int changed = 0;
        int added = 0;
        int lostOwn = 0;
        for (Map.Entry<String, State> e : before.entrySet()) {
            State after = now.get(e.getKey());
            State was = e.getValue();
            if (was.ownEdit() && !was.sameAs(after)) {
                lostOwn++;
            }
            if (was.deleted()) {
                continue;
            }
            if (after == null || after.deleted()) {
                removed++;
            } else if (!after.sameAs(was)) {
                changed++;
            }
        }
        for (Map.Entry<String, State> e : now.entrySet()) {
            State old = before.get(e.getKey());
            if (!e.getValue().deleted() && (old == null || old.deleted())) {
                added++;
            }
        }
        Set<String> conflicts = markReissuedBases(c, key, outboxBefore, before, now);
        int kept;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT COUNT(*) FROM outbox WHERE user_id = ? AND scope = ? AND seq <= ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setLong(3, outboxBefore);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                kept = rs.getInt(1);
            }
        }
        update(c, "DELETE FROM resync_previous WHERE user_id = ? AND scope = ?", key);
        update(c, "DELETE FROM resync WHERE user_id = ? AND scope = ?", key);
        return Optional.of(new Finished(new ResyncSummary(reason, removed, changed, added, lostOwn, kept,
                conflicts.size()), conflicts));
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
     * Pending edits made before the download, based on a version the server now holds with other
     * content than this device had at that version (or had not at all): each becomes a conflict with
     * the server's current state, so the user decides instead of the push overwriting it.
     */
    private static Set<String> markReissuedBases(Connection c, TaskKey key, long outboxBefore, Map<String, State> before,
                                                 Map<String, State> now) throws SQLException {
        Set<String> marked = new LinkedHashSet<>();
        Map<String, String> recordOf = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT change_id, record_id, base_version FROM outbox"
                + " WHERE user_id = ? AND scope = ? AND state = 'pending' AND seq <= ? AND base_version > 0")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setLong(3, outboxBefore);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    State server = now.get(rs.getString(2));
                    State had = before.get(rs.getString(2));
                    long base = rs.getLong(3);
                    if (server != null && server.version() == base && !server.sameAs(had)) {
                        marked.add(rs.getString(1));
                        recordOf.put(rs.getString(1), rs.getString(2));
                    }
                }
            }
        }
        for (String changeId : marked) {
            conflictWithLocalRecord(c, key, changeId, recordOf.get(changeId));
        }
        return marked;
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

    private static Map<String, State> states(Connection c, String table, TaskKey key) throws SQLException {
        Map<String, State> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT record_id, version, deleted, payload, own_edit_base FROM "
                + table + " WHERE user_id = ? AND scope = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    boolean deleted = rs.getBoolean(3);
                    String digest = deleted ? "" : digest(rs.getString(4));
                    rs.getLong(5);
                    boolean ownEdit = !rs.wasNull();
                    out.put(rs.getString(1), new State(rs.getLong(2), deleted, digest, ownEdit));
                }
            }
        }
        return out;
    }

    private static String digest(String payload) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    private static void update(Connection c, String sql, TaskKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.executeUpdate();
        }
    }
}
