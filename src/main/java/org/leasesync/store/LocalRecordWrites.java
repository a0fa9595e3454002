package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.leasesync.registry.TaskKey;
import org.leasesync.sync.RemoteRecord;

/**
 * The SQL that writes the local copy of the server's records ({@code local_record}) during a run:
 * pulled pages, and records as this device's confirmed edits left them. A record's version never
 * goes down here (a full download drops the records first, {@link JdbcResync}). Stateless and
 * thread-safe; every method runs in the caller's guarded transaction.
 */
final class LocalRecordWrites {

    private LocalRecordWrites() {
    }

    /**
     * Applies a pulled page with batches instead of up to three statements per record: one batched
     * {@code UPDATE} (only where the stored version is not newer, as in {@link #upsertRecord}); for
     * the records it did not touch, one reused point query whether the record exists (then the
     * local copy is newer and is kept); one batched {@code INSERT} of the absent ones. A record that
     * appears twice in a page is applied once, with its highest version (what applying both in
     * order leaves behind).
     */
    static void applyPage(Connection c, TaskKey key, List<RemoteRecord> records) throws SQLException {
        Map<String, RemoteRecord> latest = new java.util.LinkedHashMap<>();
        for (RemoteRecord r : records) {
            latest.merge(r.id(), r, (a, b) -> b.version() >= a.version() ? b : a);
        }
        List<RemoteRecord> page = new ArrayList<>(latest.values());
        if (page.isEmpty()) {
            return;
        }
        int[] updated;
        // own_edit_base survives only the echo of this device's own version (same version number).
        try (PreparedStatement up = c.prepareStatement("UPDATE local_record SET version = ?, deleted = ?, payload = ?,"
                + " server_time_ms = ?, own_edit_base = CASE WHEN version = ? THEN own_edit_base ELSE NULL END"
                + " WHERE user_id = ? AND scope = ? AND record_id = ? AND version <= ?")) {
            for (RemoteRecord r : page) {
                up.setLong(1, r.version());
                up.setBoolean(2, r.deleted());
                up.setString(3, r.payloadJson());
                up.setLong(4, r.serverTime().toEpochMilli());
                up.setLong(5, r.version());
                JdbcLocalData.bindKey(up, 6, key);
                up.setString(8, r.id());
                up.setLong(9, r.version());
                up.addBatch();
            }
            updated = up.executeBatch();
        }
        boolean inserts = false;
        try (PreparedStatement exists = c.prepareStatement(
                "SELECT 1 FROM local_record WHERE user_id = ? AND scope = ? AND record_id = ?");
             PreparedStatement ins = c.prepareStatement("INSERT INTO local_record (user_id, scope, record_id, version,"
                     + " deleted, payload, server_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < page.size(); i++) {
                if (updated[i] == 1) {
                    continue;
                }
                RemoteRecord r = page.get(i);
                JdbcLocalData.bindKey(exists, 1, key);
                exists.setString(3, r.id());
                try (ResultSet rs = exists.executeQuery()) {
                    if (rs.next()) {
                        continue;   // the local copy is already newer
                    }
                }
                JdbcLocalData.bindKey(ins, 1, key);
                ins.setString(3, r.id());
                ins.setLong(4, r.version());
                ins.setBoolean(5, r.deleted());
                ins.setString(6, r.payloadJson());
                ins.setLong(7, r.serverTime().toEpochMilli());
                ins.addBatch();
                inserts = true;
            }
            if (inserts) {
                ins.executeBatch();
            }
        }
    }

    /**
     * A record as this device's confirmed edit left it ({@code ownEditBase}: the version the edit was
     * based on), unless the local copy is already newer.
     */
    static void ownEdit(Connection c, TaskKey key, String id, long version, boolean deleted,
                                     String payload, Instant serverTime, long ownEditBase) throws SQLException {
        try (PreparedStatement up = c.prepareStatement("UPDATE local_record SET version = ?, deleted = ?, payload = ?,"
                + " server_time_ms = ?, own_edit_base = ? WHERE user_id = ? AND scope = ? AND record_id = ? AND version <= ?")) {
            up.setLong(1, version);
            up.setBoolean(2, deleted);
            up.setString(3, payload);
            up.setLong(4, serverTime.toEpochMilli());
            up.setLong(5, ownEditBase);
            JdbcLocalData.bindKey(up, 6, key);
            up.setString(8, id);
            up.setLong(9, version);
            if (up.executeUpdate() == 1) {
                return;
            }
        }
        if (recordExists(c, key, id)) {
            return; // the local copy is already newer
        }
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO local_record (user_id, scope, record_id, version,"
                + " deleted, payload, server_time_ms, own_edit_base) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            JdbcLocalData.bindKey(ins, 1, key);
            ins.setString(3, id);
            ins.setLong(4, version);
            ins.setBoolean(5, deleted);
            ins.setString(6, payload);
            ins.setLong(7, serverTime.toEpochMilli());
            ins.setLong(8, ownEditBase);
            ins.executeUpdate();
        }
    }

    private static boolean recordExists(Connection c, TaskKey key, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM local_record WHERE user_id = ? AND scope = ? AND record_id = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
