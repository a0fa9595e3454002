package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.TreeSet;
import org.leasesync.registry.TaskKey;

/**
 * Per-record locks (table {@code record_lock}) that serialise saving an edit of a record with
 * confirming a push of it (issue 12, kind 3): without them, an edit saved while the previous edit of
 * the same record is being confirmed reads the old version and the confirmation's rebase cannot see
 * the uncommitted edit, so the new edit keeps a stale base and comes back as a conflict with the
 * user's own edit.
 *
 * <p>A lock is the record's row, locked with {@code SELECT ... FOR UPDATE} until the caller's
 * transaction ends (H2 and PostgreSQL alike; several processes on one H2 file too). The row is
 * created on first use; a concurrent creator waits for the first one and then finds the row.
 * Several locks are taken in record-id order, so two lockers never wait for each other in a circle.
 * Stateless, thread-safe; blocks while another transaction holds a lock (up to the database's lock
 * timeout, then an {@link SQLException}).
 */
final class RecordLocks {

    private RecordLocks() {
    }

    /** Locks one record of {@code key} until the transaction ends. */
    static void lock(Connection c, SqlDialect dialect, TaskKey key, String recordId) throws SQLException {
        if (lockExisting(c, dialect, key, recordId)) {
            return;
        }
        try {
            dialect.recoverably(c, x -> {
                try (PreparedStatement ps = x.prepareStatement(
                        "INSERT INTO record_lock (user_id, scope, record_id) VALUES (?, ?, ?)")) {
                    JdbcLocalData.bindKey(ps, 1, key);
                    ps.setString(3, recordId);
                    return ps.executeUpdate();   // the new row is locked by this transaction
                }
            });
        } catch (SQLException e) {
            if (!dialect.isDuplicateKey(e)) {
                throw e;
            }
            if (!lockExisting(c, dialect, key, recordId)) {   // created by another transaction meanwhile
                throw new SQLException("the lock row of record " + recordId + " of " + key + " vanished", e);
            }
        }
    }

    /** Locks several records of {@code key}, in record-id order. */
    static void lockAll(Connection c, SqlDialect dialect, TaskKey key, Collection<String> recordIds) throws SQLException {
        for (String id : new TreeSet<>(recordIds)) {
            lock(c, dialect, key, id);
        }
    }

    private static boolean lockExisting(Connection c, SqlDialect dialect, TaskKey key, String recordId)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT record_id FROM record_lock WHERE user_id = ? AND scope = ?"
                + " AND record_id = ?" + dialect.forUpdate())) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, recordId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
