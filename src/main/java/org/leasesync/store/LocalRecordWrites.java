package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.leasesync.lease.TaskKey;
import org.leasesync.sync.RemoteRecord;

/**
 * The SQL that writes the local copy of the server's records ({@code local_record}) during a run:
 * pulled pages, and records as this device's confirmed edits left them. A record's version never
 * goes down here (a full download drops the records first, {@link JdbcResync}). Stateless and
 * thread-safe; every method runs in the caller's guarded transaction.
 */
final class LocalRecordWrites {

    private LocalRecordWrites() {}

    /**
     * Applies a pulled page as one JDBC batch of one upsert per record: the record is inserted when
     * absent and updated when the stored version is not newer (as in {@link #ownEditSql}; a newer local
     * copy is kept) — one index lookup per record instead of an update, a point query and an insert
     * for a new one. {@code own_edit_base} survives only the echo of this device's own version (same
     * version number). A record that appears twice in a page is applied once, with its highest
     * version (what applying both in order leaves behind).
     */
    static void applyPage(Connection c, SqlDialect dialect, TaskKey key, List<RemoteRecord> records)
            throws SQLException {
        Map<String, RemoteRecord> latest = new java.util.LinkedHashMap<>();
        for (RemoteRecord r : records) {
            latest.merge(r.id(), r, (a, b) -> b.version() >= a.version() ? b : a);
        }
        if (latest.isEmpty()) {
            return;
        }
        try (PreparedStatement up = c.prepareStatement(upsertSql(dialect))) {
            for (RemoteRecord r : latest.values()) {
                JdbcLocalData.bindKey(up, 1, key);
                up.setString(3, r.id());
                up.setLong(4, r.version());
                up.setBoolean(5, r.deleted());
                up.setString(6, r.payloadJson());
                up.setLong(7, r.serverTime().toEpochMilli());
                up.addBatch();
            }
            up.executeBatch();
        }
    }

    /**
     * The upsert of one pulled record; parameters: user, scope, record id, version, deleted, payload,
     * server time (ms). H2: {@code MERGE ... USING} with a conditional {@code WHEN MATCHED}; PostgreSQL:
     * {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE} (PostgreSQL 14 has no {@code MERGE}).
     */
    static String upsertSql(SqlDialect dialect) {
        return switch (dialect) {
            case H2 ->
                "MERGE INTO local_record t USING (SELECT CAST(? AS VARCHAR(200)) AS user_id,"
                        + " CAST(? AS VARCHAR(40)) AS scope, CAST(? AS VARCHAR(255)) AS record_id, CAST(? AS BIGINT) AS version,"
                        + " CAST(? AS BOOLEAN) AS deleted, CAST(? AS CHARACTER LARGE OBJECT) AS payload,"
                        + " CAST(? AS BIGINT) AS server_time_ms) s"
                        + " ON t.user_id = s.user_id AND t.scope = s.scope AND t.record_id = s.record_id"
                        + " WHEN MATCHED AND t.version <= s.version THEN UPDATE SET version = s.version, deleted = s.deleted,"
                        + " payload = s.payload, server_time_ms = s.server_time_ms,"
                        + " own_edit_base = CASE WHEN t.version = s.version THEN t.own_edit_base ELSE NULL END"
                        + " WHEN NOT MATCHED THEN INSERT (user_id, scope, record_id, version, deleted, payload, server_time_ms)"
                        + " VALUES (s.user_id, s.scope, s.record_id, s.version, s.deleted, s.payload, s.server_time_ms)";
            case POSTGRESQL ->
                "INSERT INTO local_record AS t (user_id, scope, record_id, version, deleted, payload,"
                        + " server_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, scope, record_id) DO UPDATE"
                        + " SET version = EXCLUDED.version, deleted = EXCLUDED.deleted, payload = EXCLUDED.payload,"
                        + " server_time_ms = EXCLUDED.server_time_ms,"
                        + " own_edit_base = CASE WHEN t.version = EXCLUDED.version THEN t.own_edit_base ELSE NULL END"
                        + " WHERE t.version <= EXCLUDED.version";
        };
    }

    /**
     * The upsert of a record as this device's confirmed edit left it, unless the local copy is already
     * newer; parameters as {@link #bindOwnEdit} binds them. For a JDBC batch of confirmed edits.
     */
    static String ownEditSql(SqlDialect dialect) {
        return switch (dialect) {
            case H2 ->
                "MERGE INTO local_record t USING (SELECT CAST(? AS VARCHAR(200)) AS user_id,"
                        + " CAST(? AS VARCHAR(40)) AS scope, CAST(? AS VARCHAR(255)) AS record_id, CAST(? AS BIGINT) AS version,"
                        + " CAST(? AS BOOLEAN) AS deleted, CAST(? AS CHARACTER LARGE OBJECT) AS payload,"
                        + " CAST(? AS BIGINT) AS server_time_ms, CAST(? AS BIGINT) AS own_edit_base) s"
                        + " ON t.user_id = s.user_id AND t.scope = s.scope AND t.record_id = s.record_id"
                        + " WHEN MATCHED AND t.version <= s.version THEN UPDATE SET version = s.version, deleted = s.deleted,"
                        + " payload = s.payload, server_time_ms = s.server_time_ms, own_edit_base = s.own_edit_base"
                        + " WHEN NOT MATCHED THEN INSERT (user_id, scope, record_id, version, deleted, payload, server_time_ms,"
                        + " own_edit_base) VALUES (s.user_id, s.scope, s.record_id, s.version, s.deleted, s.payload,"
                        + " s.server_time_ms, s.own_edit_base)";
            case POSTGRESQL ->
                "INSERT INTO local_record AS t (user_id, scope, record_id, version, deleted, payload,"
                        + " server_time_ms, own_edit_base) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, scope, record_id)"
                        + " DO UPDATE SET version = EXCLUDED.version, deleted = EXCLUDED.deleted, payload = EXCLUDED.payload,"
                        + " server_time_ms = EXCLUDED.server_time_ms, own_edit_base = EXCLUDED.own_edit_base"
                        + " WHERE t.version <= EXCLUDED.version";
        };
    }

    /**
     * Binds {@link #ownEditSql}: the record as this device's confirmed edit left it
     * ({@code ownEditBase}: the version the edit was based on).
     */
    static void bindOwnEdit(
            PreparedStatement ps,
            TaskKey key,
            String id,
            long version,
            boolean deleted,
            String payload,
            Instant serverTime,
            long ownEditBase)
            throws SQLException {
        JdbcLocalData.bindKey(ps, 1, key);
        ps.setString(3, id);
        ps.setLong(4, version);
        ps.setBoolean(5, deleted);
        ps.setString(6, payload);
        ps.setLong(7, serverTime.toEpochMilli());
        ps.setLong(8, ownEditBase);
    }
}
