package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.UUID;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushLimits;

/**
 * Saving a local edit into the outbox, in the caller's transaction, never over a change it did not see:
 * <ol>
 *   <li>lock the record ({@link RecordLocks}), so that a push of its previous edit being confirmed
 *       right now either finishes first (and this edit reads the confirmed version) or starts after
 *       this edit is in the outbox (and rebases it);</li>
 *   <li>read the record's local version — the server's version as last synced, or the version this
 *       device's own confirmed edit produced ({@code own_edit_base} holds the version that edit was
 *       based on);</li>
 *   <li>decide the base: without a seen version, the local version; with one, the seen version if it
 *       is still the local version, or the local version if that came from the user's own edit made
 *       on the seen version; otherwise the record changed since the user saw it (another device's
 *       version was pulled meanwhile) and the edit is saved as a <em>conflict</em> with the local
 *       version as the server's side, never silently based on a version the user did not see;</li>
 *   <li>insert the entry.</li>
 * </ol>
 * Stateless, thread-safe; blocks while a confirmation of the same record holds its lock.
 */
final class EditWrites {

    /** The record as this device has it. */
    private record Current(long version, Long ownEditBase, boolean deleted, String payload) {
        static final Current NONE = new Current(0, null, false, null);
    }

    private EditWrites() {}

    /** Saves the edit; see the class comment. {@code seenVersion}: the version the user saw, if known. */
    static SavedEdit save(
            Connection c,
            SqlDialect dialect,
            TaskKey key,
            String recordId,
            String payloadJson,
            boolean deleted,
            OptionalLong seenVersion,
            Instant now)
            throws SQLException {
        RecordLocks.lock(c, dialect, key, recordId);
        Current cur = current(c, key, recordId);
        long base = cur.version();
        boolean conflict = false;
        if (seenVersion.isPresent() && seenVersion.getAsLong() != cur.version()) {
            boolean ownEditOnSeen = cur.ownEditBase() != null && cur.ownEditBase() == seenVersion.getAsLong();
            base = ownEditOnSeen ? cur.version() : seenVersion.getAsLong();
            conflict = !ownEditOnSeen;
        }
        String changeId = UUID.randomUUID().toString();
        // An edit that can never be pushed is refused now, with the limit, instead of waiting in the
        // outbox for a push the server will always refuse (the transaction then saves nothing).
        PushLimits.checkFits(new OutboxEntry(0, changeId, recordId, base, deleted, payloadJson, now));
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (user_id, scope, change_id, record_id,"
                + " base_version, deleted, payload, created_at_ms, state, server_version, server_deleted, server_payload)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, changeId);
            ps.setString(4, recordId);
            ps.setLong(5, base);
            ps.setBoolean(6, deleted);
            ps.setString(7, payloadJson);
            ps.setLong(8, now.toEpochMilli());
            ps.setString(9, conflict ? "conflict" : "pending");
            if (conflict) {
                ps.setLong(10, cur.version());
                ps.setBoolean(11, cur.deleted());
                ps.setString(12, cur.payload() == null || cur.deleted() ? "{}" : cur.payload());
            } else {
                ps.setNull(10, java.sql.Types.BIGINT);
                ps.setNull(11, java.sql.Types.BOOLEAN);
                ps.setNull(12, java.sql.Types.VARCHAR);
            }
            ps.executeUpdate();
        }
        return new SavedEdit(changeId, base, conflict, cur.version(), cur.deleted());
    }

    private static Current current(Connection c, TaskKey key, String recordId) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT version, own_edit_base, deleted, payload FROM local_record"
                        + " WHERE user_id = ? AND scope = ? AND record_id = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, recordId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Current.NONE;
                }
                long own = rs.getLong(2);
                Long ownEditBase = rs.wasNull() ? null : own;
                return new Current(rs.getLong(1), ownEditBase, rs.getBoolean(3), rs.getString(4));
            }
        }
    }
}
