package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.leasesync.lease.TaskKey;

/**
 * Per-record locks (table {@code record_lock}) that serialise saving an edit of a record with
 * confirming a push of it: without them, an edit saved while the previous edit of
 * the same record is being confirmed reads the old version and the confirmation's rebase cannot see
 * the uncommitted edit, so the new edit keeps a stale base and comes back as a conflict with the
 * user's own edit.
 *
 * <p>A lock is the record's row, locked with {@code SELECT ... FOR UPDATE} until the caller's
 * transaction ends (H2 and PostgreSQL alike; several processes on one H2 file too). The row is
 * created on first use; a concurrent creator waits for the first one and then finds the row.
 * {@link #lockAll} takes the existing rows in record-id order, then creates the missing ones in
 * record-id order; it is not one strict order over all ids, so it relies on its callers to be
 * serialized per task key. Its only caller, a push confirmation, holds the key's fenced lease row,
 * and an edit locks one record only and waits for nothing after it, so no two lockers wait for
 * each other in a circle.
 * Stateless, thread-safe; blocks while another transaction holds a lock (up to the database's lock
 * timeout, then an {@link SQLException}).
 */
final class RecordLocks {

    private RecordLocks() {}

    /** Locks one record of {@code key} until the transaction ends. */
    static void lock(Connection c, SqlDialect dialect, TaskKey key, String recordId) throws SQLException {
        if (lockExisting(c, dialect, key, recordId)) {
            return;
        }
        try {
            dialect.recoverably(c, x -> {
                try (PreparedStatement ps =
                        x.prepareStatement("INSERT INTO record_lock (user_id, scope, record_id) VALUES (?, ?, ?)")) {
                    JdbcLocalData.bindKey(ps, 1, key);
                    ps.setString(3, recordId);
                    return ps.executeUpdate(); // the new row is locked by this transaction
                }
            });
        } catch (SQLException e) {
            if (!dialect.isDuplicateKey(e)) {
                throw e;
            }
            if (!lockExisting(c, dialect, key, recordId)) { // created by another transaction meanwhile
                throw new SQLException("the lock row of record " + recordId + " of " + key + " vanished", e);
            }
        }
    }

    /**
     * Locks several records of {@code key}: the existing lock rows, in record-id order, with one
     * statement (an array of ids joined to the table, so each id is a primary-key look-up; an
     * {@code IN} list would not use the index on H2), then any missing row is created
     * one by one in record-id order as {@link #lock} does. Callers must be serialized per key (see
     * the class comment): the two passes together are not one global order.
     */
    static void lockAll(Connection c, SqlDialect dialect, TaskKey key, Collection<String> recordIds)
            throws SQLException {
        TreeSet<String> ids = new TreeSet<>(recordIds);
        if (ids.size() <= 1) {
            for (String id : ids) {
                lock(c, dialect, key, id);
            }
            return;
        }
        Set<String> locked = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(lockManySql(dialect))) {
            ps.setArray(1, c.createArrayOf("VARCHAR", ids.toArray(new String[0])));
            JdbcLocalData.bindKey(ps, 2, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.add(rs.getString(1));
                }
            }
        }
        for (String id : ids) {
            if (!locked.contains(id)) {
                lock(c, dialect, key, id); // first use of this record: its row is created
            }
        }
    }

    /**
     * Locks the existing rows of an array of record ids (parameter 1, sorted), user (2) and scope (3).
     * H2 walks the array in its order and looks each id up by primary key; PostgreSQL locks the
     * rows in the {@code ORDER BY} order.
     */
    static String lockManySql(SqlDialect dialect) {
        return switch (dialect) {
            case H2 ->
                "SELECT l.record_id FROM TABLE(id VARCHAR = ?) t JOIN record_lock l"
                        + " ON l.user_id = ? AND l.scope = ? AND l.record_id = t.id" + dialect.forUpdate();
            case POSTGRESQL ->
                "SELECT record_id FROM record_lock WHERE record_id = ANY(?) AND user_id = ? AND scope = ?"
                        + " ORDER BY " + dialect.textOrder("record_id") + dialect.forUpdate();
        };
    }

    private static boolean lockExisting(Connection c, SqlDialect dialect, TaskKey key, String recordId)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT record_id FROM record_lock WHERE user_id = ? AND scope = ?"
                        + " AND record_id = ?" + dialect.forUpdate())) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, recordId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
