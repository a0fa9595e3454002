package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SQL for records, applied change ids and the per user+scope sequence. No policy lives here.
 *
 * <p>Thread-safe (stateless). Methods taking a {@link Connection} run in the caller's transaction.
 */
public final class RecordStore {

    /** A record's current state. {@code payloadJson} is null for tombstones. */
    public record StoredRecord(
            String id, long version, boolean deleted, String payloadJson, long seq, long updatedAtMs) {}

    /** A change id that was applied, and the version it produced. */
    public record AppliedChange(String changeId, String recordId, long version) {}

    /** One page of a pull: up to {@code limit} records, and whether more were available. */
    public record Page(List<StoredRecord> records, boolean hasMore) {}

    private final ServerDatabase db;

    private volatile String databaseId;

    public RecordStore(ServerDatabase db) {
        this.db = db;
    }

    /**
     * This database's random id (12 hex digits), created on first use and kept with the data; pull
     * cursors carry it. Every instance on one database agrees on it (the first insert wins).
     */
    public String databaseId() throws SQLException {
        String id = databaseId;
        if (id != null) {
            return id;
        }
        synchronized (this) {
            if (databaseId == null) {
                try (Connection c = db.connection()) {
                    Optional<String> stored = readDatabaseId(c);
                    if (stored.isPresent()) {
                        databaseId = stored.get();
                        return databaseId;
                    }
                    byte[] b = new byte[6];
                    new java.security.SecureRandom().nextBytes(b);
                    String fresh = java.util.HexFormat.of().formatHex(b);
                    try (PreparedStatement ps =
                            c.prepareStatement("INSERT INTO server_identity (id, database_id) VALUES (1, ?)")) {
                        ps.setString(1, fresh);
                        ps.executeUpdate();
                        databaseId = fresh;
                    } catch (SQLException e) {
                        // another instance on the same database created it first: use theirs
                        if (!DatabaseErrors.isUniqueViolation(e)) {
                            throw e;
                        }
                        databaseId = readDatabaseId(c).orElseThrow(() -> e);
                    }
                }
            }
            return databaseId;
        }
    }

    private static Optional<String> readDatabaseId(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT database_id FROM server_identity WHERE id = 1");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
        }
    }

    /**
     * A page of changes: user, scope, since, limit. The same order as by seq alone (user and scope are
     * fixed), spelled as the index {@code sync_records_by_seq} so H2 walks it and stops after the page;
     * {@code ORDER BY seq} alone made it read every record after the cursor and sort them, for each
     * page.
     */
    static final String CHANGES_SINCE_SQL = "SELECT record_id, record_version, deleted, payload, seq, updated_at_ms"
            + " FROM sync_records WHERE user_id = ? AND scope = ? AND seq > ? ORDER BY user_id, scope, seq"
            + " OFFSET 0 ROWS FETCH NEXT ? ROWS ONLY";

    /** Records of user+scope with {@code seq > since}, by seq, at most {@code limit}. */
    public Page changesSince(String user, String scope, long since, int limit) throws SQLException {
        try (Connection c = db.connection()) {
            return changesSince(c, user, scope, since, limit);
        }
    }

    /** {@link #changesSince(String, String, long, int)} in the caller's transaction. */
    public Page changesSince(Connection c, String user, String scope, long since, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(CHANGES_SINCE_SQL)) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setLong(3, since);
            ps.setInt(4, limit + 1);
            List<StoredRecord> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
            boolean more = out.size() > limit;
            return new Page(more ? List.copyOf(out.subList(0, limit)) : List.copyOf(out), more);
        }
    }

    /** Locks the user+scope row until the transaction ends and returns its last seq. */
    public long lockScope(Connection c, String user, String scope) throws SQLException {
        return lastSeq(c, user, scope, " FOR UPDATE");
    }

    /** The user+scope's last assigned seq, read without a lock. */
    public long lastSeq(Connection c, String user, String scope) throws SQLException {
        return lastSeq(c, user, scope, "");
    }

    private static long lastSeq(Connection c, String user, String scope, String lock) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT last_seq FROM scope_state WHERE user_id = ? AND scope = ?" + lock)) {
            ps.setString(1, user);
            ps.setString(2, scope);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no scope_state row for " + user + "|" + scope);
                }
                return rs.getLong(1);
            }
        }
    }

    public void setLastSeq(Connection c, String user, String scope, long seq) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE scope_state SET last_seq = ? WHERE user_id = ? AND scope = ?")) {
            ps.setLong(1, seq);
            ps.setString(2, user);
            ps.setString(3, scope);
            ps.executeUpdate();
        }
    }

    Optional<StoredRecord> find(Connection c, String user, String scope, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT record_id, record_version, deleted, payload, seq, updated_at_ms FROM sync_records"
                        + " WHERE user_id = ? AND scope = ? AND record_id = ?")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setString(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    /** Inserts the record if {@code exists} is false (it must be absent), else updates it. */
    public void write(Connection c, String user, String scope, StoredRecord r, boolean exists) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(writeSql(exists))) {
            bindWrite(ps, user, scope, r);
            if (ps.executeUpdate() != 1) {
                throw new SQLException("record write touched no row: " + user + "|" + scope + "|" + r.id());
            }
        }
    }

    private static String writeSql(boolean exists) {
        return exists
                ? "UPDATE sync_records SET record_version = ?, deleted = ?, payload = ?, seq = ?, updated_at_ms = ?"
                        + " WHERE user_id = ? AND scope = ? AND record_id = ?"
                : "INSERT INTO sync_records (record_version, deleted, payload, seq, updated_at_ms,"
                        + " user_id, scope, record_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    }

    private static void bindWrite(PreparedStatement ps, String user, String scope, StoredRecord r) throws SQLException {
        ps.setLong(1, r.version());
        ps.setBoolean(2, r.deleted());
        ps.setString(3, r.payloadJson());
        ps.setLong(4, r.seq());
        ps.setLong(5, r.updatedAtMs());
        ps.setString(6, user);
        ps.setString(7, scope);
        ps.setString(8, r.id());
    }

    /**
     * The rows of an array of ids (parameter 1) joined to a table: H2 and PostgreSQL walk the array
     * and look each id up by primary key, in one statement. (An {@code IN (...)} list would be one
     * statement too, but H2 uses an index for one only on an index's first column: it read every
     * record of the user+scope, for each push, 5× slower.)
     */
    static final String IDS = "UNNEST(CAST(? AS VARCHAR ARRAY)) AS ids(id)";

    /**
     * The current state of those of {@code ids} that exist, by record id: one statement, a
     * primary-key look-up per id ({@link #IDS}).
     */
    public Map<String, StoredRecord> findAll(Connection c, String user, String scope, Collection<String> ids)
            throws SQLException {
        Map<String, StoredRecord> out = new HashMap<>();
        if (ids.isEmpty()) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT r.record_id, r.record_version, r.deleted, r.payload, r.seq, r.updated_at_ms FROM " + IDS
                        + " JOIN sync_records r ON r.user_id = ? AND r.scope = ? AND r.record_id = ids.id")) {
            ps.setArray(1, c.createArrayOf("VARCHAR", new java.util.LinkedHashSet<>(ids).toArray(new String[0])));
            ps.setString(2, user);
            ps.setString(3, scope);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    StoredRecord r = read(rs);
                    out.put(r.id(), r);
                }
            }
        }
        return out;
    }

    /**
     * Writes records as two JDBC batches: {@code inserts} (absent until now) and {@code updates}
     * (present). Each record at most once.
     *
     * @throws SQLException if a write touched no row, or on any database failure
     */
    public void writeAll(
            Connection c, String user, String scope, List<StoredRecord> inserts, List<StoredRecord> updates)
            throws SQLException {
        writeBatch(c, user, scope, inserts, false);
        writeBatch(c, user, scope, updates, true);
    }

    private static void writeBatch(Connection c, String user, String scope, List<StoredRecord> rs, boolean exists)
            throws SQLException {
        if (rs.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(writeSql(exists))) {
            for (StoredRecord r : rs) {
                bindWrite(ps, user, scope, r);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] != 1 && counts[i] != java.sql.Statement.SUCCESS_NO_INFO) {
                    throw new SQLException("record write touched no row: " + user + "|" + scope + "|"
                            + rs.get(i).id());
                }
            }
        }
    }

    /**
     * The applied changes among {@code changeIds}, by change id: one statement, a primary-key
     * look-up per id ({@link #IDS}).
     */
    public Map<String, AppliedChange> findAllApplied(
            Connection c, String user, String scope, Collection<String> changeIds) throws SQLException {
        Map<String, AppliedChange> out = new HashMap<>();
        if (changeIds.isEmpty()) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT a.change_id, a.record_id, a.record_version FROM " + IDS
                + " JOIN applied_changes a ON a.user_id = ? AND a.scope = ? AND a.change_id = ids.id")) {
            ps.setArray(1, c.createArrayOf("VARCHAR", new java.util.LinkedHashSet<>(changeIds).toArray(new String[0])));
            ps.setString(2, user);
            ps.setString(3, scope);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), new AppliedChange(rs.getString(1), rs.getString(2), rs.getLong(3)));
                }
            }
        }
        return out;
    }

    /** Inserts applied change ids as one JDBC batch. */
    public void insertAllApplied(Connection c, String user, String scope, List<AppliedChange> applied, long nowMs)
            throws SQLException {
        if (applied.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_APPLIED_SQL)) {
            for (AppliedChange a : applied) {
                bindApplied(ps, user, scope, a, nowMs);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static final String INSERT_APPLIED_SQL = "INSERT INTO applied_changes (user_id, scope, change_id,"
            + " record_id, record_version, applied_at_ms, stats_generation)"
            + " VALUES (?, ?, ?, ?, ?, ?, (SELECT generation FROM stats_state WHERE id = 1))";

    private static void bindApplied(PreparedStatement ps, String user, String scope, AppliedChange a, long nowMs)
            throws SQLException {
        ps.setString(1, user);
        ps.setString(2, scope);
        ps.setString(3, a.changeId());
        ps.setString(4, a.recordId());
        ps.setLong(5, a.version());
        ps.setLong(6, nowMs);
    }

    private static StoredRecord read(ResultSet rs) throws SQLException {
        return new StoredRecord(
                rs.getString(1), rs.getLong(2), rs.getBoolean(3), rs.getString(4), rs.getLong(5), rs.getLong(6));
    }
}
