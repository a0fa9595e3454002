package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.leasesync.registry.Checkpoint;
import org.leasesync.registry.Fence;
import org.leasesync.registry.Stage;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TimeSource;
import org.leasesync.sync.LocalData;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushLimits;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.sync.RemoteRecord;

/**
 * Local records, outbox and checkpoint in SQL. Every run write is one {@link JdbcGuard} transaction
 * that also writes the checkpoint (design.md invariant 5) and touches only the fence's user and
 * scope (invariant 8).
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcLocalData implements LocalData {

    /**
     * Push batches stay under about 1 MiB of body (the protocol refuses bodies over 5 MiB; a batch of
     * one larger entry is sent alone).
     */
    static final long MAX_BATCH_BYTES = 1L << 20;

    private static final String OUTBOX_COLUMNS =
            "seq, change_id, record_id, base_version, deleted, payload, created_at_ms";

    private final Database db;
    private final JdbcGuard guard;
    private final TimeSource time;

    public JdbcLocalData(Database db, TimeSource time) {
        this.db = db;
        this.guard = new JdbcGuard(db);
        this.time = time;
    }

    @Override
    public List<OutboxEntry> pendingOutbox(TaskKey key, int limit) {
        return db.query("read the outbox of " + key, c -> {
            // Only the oldest unconfirmed edit of each record is eligible: a later edit of the same
            // record waits until the earlier one is applied (then it is rebased on the version that
            // produced) or resolved, so it can never slip past a conflict by a coincidental version.
            // A rejected edit was never applied, so the next edit of its record (based on the same
            // server version) goes ahead.
            try (PreparedStatement ps = c.prepareStatement("SELECT " + OUTBOX_COLUMNS
                    + " FROM outbox o WHERE user_id = ? AND scope = ? AND state = 'pending'"
                    + " AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.user_id = o.user_id AND p.scope = o.scope"
                    + " AND p.record_id = o.record_id AND p.seq < o.seq AND p.state <> 'rejected')"
                    + " ORDER BY seq FETCH FIRST ? ROWS ONLY")) {
                bindKey(ps, 1, key);
                ps.setInt(3, limit);   // in the SQL, so the ordered index scan stops after the batch
                return withinBytes(readEntries(ps), MAX_BATCH_BYTES);
            }
        });
    }

    @Override
    public List<OutboxEntry> outboxEntries(TaskKey key, List<String> changeIds) {
        return db.query("read outbox entries of " + key, c -> {
            Map<String, OutboxEntry> byId = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT " + OUTBOX_COLUMNS
                    + " FROM outbox WHERE user_id = ? AND scope = ? AND state = 'pending' AND change_id = ?")) {
                for (String id : changeIds) {
                    bindKey(ps, 1, key);
                    ps.setString(3, id);
                    for (OutboxEntry e : readEntries(ps)) {
                        byId.put(e.changeId(), e);
                    }
                }
            }
            List<OutboxEntry> out = new ArrayList<>();
            for (String id : changeIds) {
                if (byId.containsKey(id)) {
                    out.add(byId.get(id));
                }
            }
            return out;
        });
    }

    @Override
    public void applyPullPage(Fence fence, String runId, PullPage page) {
        guard.inTransaction(fence, "apply a pulled page for " + fence.taskKey(), c -> {
            upsertPage(c, fence.taskKey(), page.records());
            Optional<Checkpoint> before = JdbcRunStore.readCheckpoint(c, fence.taskKey());
            JdbcRunStore.writeCheckpoint(c, keepInFlight(checkpoint(fence, runId, Stage.PULLING,
                    Optional.of(page.nextCursor()), null), before));
            return null;
        });
    }

    @Override
    public void beginPush(Fence fence, String runId, PushBatch batch) {
        guard.inTransaction(fence, "record push batch " + batch.batchId() + " for " + fence.taskKey(), c -> {
            Optional<String> cursor = JdbcRunStore.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, batch));
            return null;
        });
    }

    @Override
    public void confirmPush(Fence fence, String runId, PushBatch batch, PushResponse response) {
        Map<String, PushResult> byChange = new HashMap<>();
        for (PushResult r : response.results()) {
            byChange.put(r.changeId(), r);
        }
        guard.inTransaction(fence, "confirm push " + batch.idempotencyKey() + " for " + fence.taskKey(), c -> {
            for (OutboxEntry e : batch.entries()) {
                PushResult r = byChange.get(e.changeId());
                if (r == null) {
                    continue; // not answered: stays pending, pushed again in a later batch
                }
                if (r.applied()) {
                    upsertRecordIfNewer(c, fence.taskKey(), e.recordId(), r.version(), e.deleted(), e.payloadJson());
                    deleteEntry(c, fence.taskKey(), e.changeId());
                    rebaseFollowers(c, fence.taskKey(), e, r.version());
                } else {
                    markConflict(c, fence.taskKey(), e.changeId(), r);
                }
            }
            Optional<String> cursor = JdbcRunStore.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, null));
            return null;
        });
    }

    @Override
    public boolean rejectEntry(Fence fence, String runId, OutboxEntry entry, String reason) {
        return guard.inTransaction(fence, "set aside rejected edit " + entry.changeId() + " of " + fence.taskKey(), c -> {
            boolean changed;
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'rejected', rejected_reason = ?,"
                    + " rejected_at_ms = ? WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'pending'")) {
                ps.setString(1, clip(reason));
                ps.setLong(2, time.now().toEpochMilli());
                bindKey(ps, 3, fence.taskKey());
                ps.setString(5, entry.changeId());
                changed = ps.executeUpdate() == 1;
            }
            Optional<String> cursor = JdbcRunStore.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, null));
            return changed;
        });
    }

    /** Reasons are kept to the column's 2,000 characters. */
    static String clip(String s) {
        return s.length() <= 2000 ? s : s.substring(0, 1999) + "…";
    }

    @Override
    public void resetForResync(Fence fence, String runId) {
        guard.inTransaction(fence, "reset the local copy of " + fence.taskKey(), c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM local_record WHERE user_id = ? AND scope = ?")) {
                bindKey(ps, 1, fence.taskKey());
                ps.executeUpdate();
            }
            Optional<Checkpoint> before = JdbcRunStore.readCheckpoint(c, fence.taskKey());
            JdbcRunStore.writeCheckpoint(c, keepInFlight(checkpoint(fence, runId, Stage.PULLING, Optional.empty(), null),
                    before));
            return null;
        });
    }

    /**
     * A pull does not settle a push left in flight by an earlier run: its batch and idempotency key
     * stay in the checkpoint until the push stage confirms (or the user discards) it.
     */
    private static Checkpoint keepInFlight(Checkpoint next, Optional<Checkpoint> before) {
        if (before.isEmpty() || before.get().idempotencyKey().isEmpty()) {
            return next;
        }
        Checkpoint b = before.get();
        return new Checkpoint(next.key(), next.runId(), next.epoch(), next.stage(), next.stageText(), next.pullCursor(),
                b.pushBatchId(), b.idempotencyKey(), b.pushChangeIds(), b.pushSentAt(), next.updatedAt());
    }

    @Override
    public void discardInFlight(Fence fence, String runId) {
        guard.inTransaction(fence, "discard the unconfirmed push of " + fence.taskKey(), c -> {
            Optional<String> cursor = JdbcRunStore.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, null));
            return null;
        });
    }

    @Override
    public void markDone(Fence fence, String runId) {
        guard.inTransaction(fence, "mark " + fence.taskKey() + " done", c -> {
            Optional<String> cursor = JdbcRunStore.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.DONE, cursor, null));
            return null;
        });
    }

    @Override
    public Optional<String> pullCursor(TaskKey key) {
        return db.query("read the pull cursor of " + key,
                c -> JdbcRunStore.readCheckpoint(c, key).flatMap(Checkpoint::pullCursor));
    }

    private Checkpoint checkpoint(Fence fence, String runId, Stage stage, Optional<String> cursor, PushBatch batch) {
        Instant now = time.now();
        return new Checkpoint(fence.taskKey(), runId, fence.epoch(), Optional.of(stage), stage.wireName(), cursor,
                Optional.ofNullable(batch).map(PushBatch::batchId), Optional.ofNullable(batch).map(PushBatch::idempotencyKey),
                batch == null ? List.of() : batch.changeIds(), batch == null ? Optional.empty() : Optional.of(now), now);
    }

    /**
     * Applies a pulled page with batches instead of up to three statements per record: one batched
     * {@code UPDATE} (only where the stored version is not newer, as in {@link #upsertRecord}); for
     * the records it did not touch, one reused point query whether the record exists (then the
     * local copy is newer and is kept); one batched {@code INSERT} of the absent ones. A record that
     * appears twice in a page is applied once, with its highest version (what applying both in
     * order leaves behind).
     */
    private static void upsertPage(Connection c, TaskKey key, List<RemoteRecord> records) throws SQLException {
        Map<String, RemoteRecord> latest = new java.util.LinkedHashMap<>();
        for (RemoteRecord r : records) {
            latest.merge(r.id(), r, (a, b) -> b.version() >= a.version() ? b : a);
        }
        List<RemoteRecord> page = new ArrayList<>(latest.values());
        if (page.isEmpty()) {
            return;
        }
        int[] updated;
        try (PreparedStatement up = c.prepareStatement("UPDATE local_record SET version = ?, deleted = ?, payload = ?,"
                + " server_time_ms = ? WHERE user_id = ? AND scope = ? AND record_id = ? AND version <= ?")) {
            for (RemoteRecord r : page) {
                up.setLong(1, r.version());
                up.setBoolean(2, r.deleted());
                up.setString(3, r.payloadJson());
                up.setLong(4, r.serverTime().toEpochMilli());
                bindKey(up, 5, key);
                up.setString(7, r.id());
                up.setLong(8, r.version());
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
                bindKey(exists, 1, key);
                exists.setString(3, r.id());
                try (ResultSet rs = exists.executeQuery()) {
                    if (rs.next()) {
                        continue;   // the local copy is already newer
                    }
                }
                bindKey(ins, 1, key);
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

    private static void upsertRecord(Connection c, TaskKey key, String id, long version, boolean deleted,
                                     String payload, Instant serverTime) throws SQLException {
        try (PreparedStatement up = c.prepareStatement("UPDATE local_record SET version = ?, deleted = ?, payload = ?,"
                + " server_time_ms = ? WHERE user_id = ? AND scope = ? AND record_id = ? AND version <= ?")) {
            up.setLong(1, version);
            up.setBoolean(2, deleted);
            up.setString(3, payload);
            up.setLong(4, serverTime.toEpochMilli());
            bindKey(up, 5, key);
            up.setString(7, id);
            up.setLong(8, version);
            if (up.executeUpdate() == 1) {
                return;
            }
        }
        if (recordExists(c, key, id)) {
            return; // the local copy is already newer
        }
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO local_record (user_id, scope, record_id, version,"
                + " deleted, payload, server_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            bindKey(ins, 1, key);
            ins.setString(3, id);
            ins.setLong(4, version);
            ins.setBoolean(5, deleted);
            ins.setString(6, payload);
            ins.setLong(7, serverTime.toEpochMilli());
            ins.executeUpdate();
        }
    }

    private void upsertRecordIfNewer(Connection c, TaskKey key, String id, long version, boolean deleted,
                                     String payload) throws SQLException {
        upsertRecord(c, key, id, version, deleted, payload, time.now());
    }

    private static boolean recordExists(Connection c, TaskKey key, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM local_record WHERE user_id = ? AND scope = ? AND record_id = ?")) {
            bindKey(ps, 1, key);
            ps.setString(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void deleteEntry(Connection c, TaskKey key, String changeId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM outbox WHERE user_id = ? AND scope = ? AND change_id = ?")) {
            bindKey(ps, 1, key);
            ps.setString(3, changeId);
            ps.executeUpdate();
        }
    }

    /** The next edits of the same record now build on the version this one produced. */
    private static void rebaseFollowers(Connection c, TaskKey key, OutboxEntry applied, long version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET base_version = ? WHERE user_id = ? AND scope = ?"
                + " AND record_id = ? AND state = 'pending' AND seq > ?")) {
            ps.setLong(1, version);
            bindKey(ps, 2, key);
            ps.setString(4, applied.recordId());
            ps.setLong(5, applied.seq());
            ps.executeUpdate();
        }
    }

    /** The longest prefix of {@code entries} whose push body stays within {@code maxBytes} (at least one entry). */
    static List<OutboxEntry> withinBytes(List<OutboxEntry> entries, long maxBytes) {
        List<OutboxEntry> out = new ArrayList<>();
        for (OutboxEntry e : entries) {
            out.add(e);
            if (out.size() > 1 && PushLimits.batchBytes(out) > maxBytes) {
                out.remove(out.size() - 1);
                break;
            }
        }
        return out;
    }

    private static void markConflict(Connection c, TaskKey key, String changeId, PushResult r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'conflict', server_version = ?,"
                + " server_deleted = ?, server_payload = ? WHERE user_id = ? AND scope = ? AND change_id = ?")) {
            ps.setLong(1, r.serverVersion());
            ps.setBoolean(2, r.serverDeleted());
            ps.setString(3, r.serverPayloadJson() == null ? "{}" : r.serverPayloadJson());
            bindKey(ps, 4, key);
            ps.setString(6, changeId);
            ps.executeUpdate();
        }
    }

    static void bindKey(PreparedStatement ps, int from, TaskKey key) throws SQLException {
        ps.setString(from, key.userId());
        ps.setString(from + 1, key.scope().wireName());
    }

    private static List<OutboxEntry> readEntries(PreparedStatement ps) throws SQLException {
        List<OutboxEntry> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new OutboxEntry(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getBoolean(5), rs.getString(6), Instant.ofEpochMilli(rs.getLong(7))));
            }
        }
        return out;
    }
}
