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
import org.leasesync.lease.Fence;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.Stage;
import org.leasesync.sync.LocalData;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushLimits;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.sync.ResyncSummary;

/**
 * Local records, outbox and checkpoint in SQL. Every run write is one {@link JdbcGuard} transaction
 * that also writes the checkpoint (invariant 5, checkpoints in the data's transaction:
 * docs/architecture.md) and touches only the fence's user and
 * scope (invariant 8).
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcLocalData implements LocalData {

    private static final System.Logger log = System.getLogger(JdbcLocalData.class.getName());

    /**
     * Push batches stay under about 1 MiB of body (the protocol refuses bodies over 5 MiB; a batch of
     * one larger entry is sent alone).
     */
    static final long MAX_BATCH_BYTES = 1L << 20;

    private static final String OUTBOX_COLUMNS =
            "seq, change_id, record_id, base_version, deleted, payload, created_at_ms";

    /**
     * The seqs of the next push batch: user, scope, limit. Only the oldest unconfirmed edit of each
     * record is eligible. Ordered by seq, spelled as the index {@code outbox_by_key} (user and scope
     * fixed, state 'pending') so H2 walks it in order and stops after the batch instead of sorting
     * every pending edit.
     */
    static final String PENDING_SEQS_SQL =
            "SELECT seq FROM outbox o WHERE user_id = ? AND scope = ? AND state = 'pending'"
                    + " AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.user_id = o.user_id AND p.scope = o.scope"
                    + " AND p.record_id = o.record_id AND p.seq < o.seq AND p.state <> 'rejected')"
                    + " ORDER BY user_id, scope, state, seq FETCH FIRST ? ROWS ONLY";

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
            // Two steps: the batch's seqs first, without payloads (so ordering the eligible edits never
            // carries their large values along), then each entry's row by its primary key.
            List<Long> seqs = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(PENDING_SEQS_SQL)) {
                bindKey(ps, 1, key);
                ps.setInt(3, limit); // in the SQL, so the ordered index scan stops after the batch
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        seqs.add(rs.getLong(1));
                    }
                }
            }
            List<OutboxEntry> entries = new ArrayList<>(seqs.size());
            try (PreparedStatement ps = c.prepareStatement("SELECT " + OUTBOX_COLUMNS
                    + " FROM outbox WHERE seq = ? AND user_id = ? AND scope = ? AND state = 'pending'")) {
                for (long seq : seqs) {
                    ps.setLong(1, seq);
                    bindKey(ps, 2, key);
                    entries.addAll(readEntries(ps)); // one row; none if it left the outbox meanwhile
                }
            }
            return withinBytes(entries, MAX_BATCH_BYTES);
        });
    }

    @Override
    public int pendingCount(TaskKey key) {
        return db.query("count the outbox of " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT COUNT(*) FROM outbox WHERE user_id = ? AND scope = ? AND state = 'pending'")) {
                bindKey(ps, 1, key);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
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
            LocalRecordWrites.applyPage(c, db.dialect(), fence.taskKey(), page.records());
            Optional<Checkpoint> before = JdbcRunHistory.readCheckpoint(c, fence.taskKey());
            JdbcRunStore.writeCheckpoint(
                    c,
                    keepInFlight(
                            checkpoint(fence, runId, Stage.PULLING, Optional.of(page.nextCursor()), null), before));
            return null;
        });
    }

    @Override
    public void beginPush(Fence fence, String runId, PushBatch batch) {
        guard.inTransaction(fence, "record push batch " + batch.batchId() + " for " + fence.taskKey(), c -> {
            Optional<String> cursor =
                    JdbcRunHistory.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
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
            // An edit of these records saved meanwhile waits, then reads the confirmed versions (RecordLocks).
            RecordLocks.lockAll(
                    c,
                    db.dialect(),
                    fence.taskKey(),
                    batch.entries().stream().map(OutboxEntry::recordId).toList());
            // The applied entries' writes go as three JDBC batches (records, outbox deletes, rebases of
            // later edits): a batch holds at most one edit per record (pendingOutbox), so they commute.
            try (PreparedStatement own = c.prepareStatement(LocalRecordWrites.ownEditSql(db.dialect()));
                    PreparedStatement delete = c.prepareStatement(
                            "DELETE FROM outbox WHERE seq = ? AND user_id = ? AND scope = ? AND change_id = ?");
                    PreparedStatement rebase = c.prepareStatement("UPDATE outbox SET base_version = ? WHERE user_id = ?"
                            + " AND scope = ? AND record_id = ? AND state = 'pending' AND seq > ?")) {
                boolean applied = false;
                for (OutboxEntry e : batch.entries()) {
                    PushResult r = byChange.get(e.changeId());
                    if (r == null) {
                        continue; // not answered: stays pending, pushed again in a later batch
                    }
                    if (!r.applied()) {
                        markConflict(c, fence.taskKey(), e.changeId(), r);
                        continue;
                    }
                    applied = true;
                    LocalRecordWrites.bindOwnEdit(
                            own,
                            fence.taskKey(),
                            e.recordId(),
                            r.version(),
                            e.deleted(),
                            e.payloadJson(),
                            time.now(),
                            e.baseVersion());
                    own.addBatch();
                    delete.setLong(1, e.seq()); // by primary key, not through the change-id index
                    bindKey(delete, 2, fence.taskKey());
                    delete.setString(4, e.changeId());
                    delete.addBatch();
                    // the next edits of the same record now build on the version this one produced
                    rebase.setLong(1, r.version());
                    bindKey(rebase, 2, fence.taskKey());
                    rebase.setString(4, e.recordId());
                    rebase.setLong(5, e.seq());
                    rebase.addBatch();
                }
                if (applied) {
                    own.executeBatch();
                    delete.executeBatch();
                    rebase.executeBatch();
                }
            }
            if (response.position().isPresent()) {
                PushPositions.save(c, fence.taskKey(), response.position().get(), time.now());
            }
            Optional<String> cursor =
                    JdbcRunHistory.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, null));
            return null;
        });
    }

    @Override
    public boolean rejectEntry(Fence fence, String runId, OutboxEntry entry, String reason) {
        return guard.inTransaction(
                fence, "set aside rejected edit " + entry.changeId() + " of " + fence.taskKey(), c -> {
                    boolean changed;
                    try (PreparedStatement ps = c.prepareStatement(
                            "UPDATE outbox SET state = 'rejected', rejected_reason = ?,"
                                    + " rejected_at_ms = ? WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'pending'")) {
                        ps.setString(1, clip(reason));
                        ps.setLong(2, time.now().toEpochMilli());
                        bindKey(ps, 3, fence.taskKey());
                        ps.setString(5, entry.changeId());
                        changed = ps.executeUpdate() == 1;
                    }
                    Optional<String> cursor =
                            JdbcRunHistory.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
                    JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, null));
                    return changed;
                });
    }

    /** Reasons are kept to the column's 2,000 characters. */
    static String clip(String s) {
        return s.length() <= 2000 ? s : s.substring(0, 1999) + "…";
    }

    @Override
    public void resetForResync(Fence fence, String runId, String reason) {
        guard.inTransaction(fence, "reset the local copy of " + fence.taskKey(), c -> {
            JdbcResync.start(c, fence.taskKey(), reason, time.now().toEpochMilli());
            Optional<Checkpoint> before = JdbcRunHistory.readCheckpoint(c, fence.taskKey());
            JdbcRunStore.writeCheckpoint(
                    c, keepInFlight(checkpoint(fence, runId, Stage.PULLING, Optional.empty(), null), before));
            return null;
        });
    }

    @Override
    public Optional<ResyncSummary> finishResync(Fence fence, String runId) {
        if (!db.query("look for a full download of " + fence.taskKey(), c -> JdbcResync.underWay(c, fence.taskKey()))) {
            return Optional.empty(); // the usual case, without a guarded transaction
        }
        return guard.inTransaction(fence, "finish the full download of " + fence.taskKey(), c -> {
            Optional<JdbcResync.Finished> done = JdbcResync.finish(c, fence.taskKey());
            if (done.isEmpty()) {
                return Optional.<ResyncSummary>empty();
            }
            Optional<Checkpoint> cp = JdbcRunHistory.readCheckpoint(c, fence.taskKey());
            if (cp.isPresent()
                    && cp.get().pushChangeIds().stream().anyMatch(done.get().newConflicts()::contains)) {
                // An edit of the in-flight push is now a conflict: the push is not resent as it was. Its
                // change ids stay with the edits, so whatever the server applied is never applied twice.
                log.log(
                        System.Logger.Level.WARNING,
                        "{0}: forgetting in-flight push {1}: some of its edits are "
                                + "conflicts after the full download",
                        fence.taskKey(),
                        cp.get().idempotencyKey().orElse(""));
                JdbcRunStore.writeCheckpoint(
                        c, checkpoint(fence, runId, Stage.PULLING, cp.get().pullCursor(), null));
            }
            return Optional.of(done.get().summary());
        });
    }

    @Override
    public Optional<String> pushedPosition(TaskKey key) {
        return db.query("read the push position of " + key, c -> PushPositions.read(c, key));
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
        return new Checkpoint(
                next.key(),
                next.runId(),
                next.epoch(),
                next.stage(),
                next.stageText(),
                next.pullCursor(),
                b.pushBatchId(),
                b.idempotencyKey(),
                b.pushChangeIds(),
                b.pushSentAt(),
                next.updatedAt());
    }

    @Override
    public void discardInFlight(Fence fence, String runId) {
        guard.inTransaction(fence, "discard the unconfirmed push of " + fence.taskKey(), c -> {
            Optional<String> cursor =
                    JdbcRunHistory.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.PUSHING, cursor, null));
            return null;
        });
    }

    @Override
    public void markDone(Fence fence, String runId) {
        guard.inTransaction(fence, "mark " + fence.taskKey() + " done", c -> {
            Optional<String> cursor =
                    JdbcRunHistory.readCheckpoint(c, fence.taskKey()).flatMap(Checkpoint::pullCursor);
            JdbcRunStore.writeCheckpoint(c, checkpoint(fence, runId, Stage.DONE, cursor, null));
            return null;
        });
    }

    @Override
    public Optional<String> pullCursor(TaskKey key) {
        return db.query(
                "read the pull cursor of " + key,
                c -> JdbcRunHistory.readCheckpoint(c, key).flatMap(Checkpoint::pullCursor));
    }

    private Checkpoint checkpoint(Fence fence, String runId, Stage stage, Optional<String> cursor, PushBatch batch) {
        Instant now = time.now();
        return new Checkpoint(
                fence.taskKey(),
                runId,
                fence.epoch(),
                Optional.of(stage),
                stage.wireName(),
                cursor,
                Optional.ofNullable(batch).map(PushBatch::batchId),
                Optional.ofNullable(batch).map(PushBatch::idempotencyKey),
                batch == null ? List.of() : batch.changeIds(),
                batch == null ? Optional.empty() : Optional.of(now),
                now);
    }

    /** The longest prefix of {@code entries} whose push body stays within {@code maxBytes} (at least one entry). */
    static List<OutboxEntry> withinBytes(List<OutboxEntry> entries, long maxBytes) {
        // A running total (what PushLimits.batchBytes would give for the prefix), so a batch of n
        // entries costs n size computations, not n²/2.
        List<OutboxEntry> out = new ArrayList<>();
        long bytes = PushLimits.batchBytes(List.of());
        for (OutboxEntry e : entries) {
            bytes += PushLimits.entryBytes(e) + (out.isEmpty() ? 0 : 1); // the comma between entries
            if (!out.isEmpty() && bytes > maxBytes) {
                break;
            }
            out.add(e);
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
                out.add(new OutboxEntry(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getLong(4),
                        rs.getBoolean(5),
                        rs.getString(6),
                        Instant.ofEpochMilli(rs.getLong(7))));
            }
        }
        return out;
    }
}
