package org.leasesync.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TimeSource;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushLimits;

/**
 * The user's side of the local data: reading records, making edits (which go to the outbox),
 * and resolving conflicts. Edits are not run writes: they take no lease. Every query is scoped
 * to one user and scope (design.md invariant 8).
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcLocalEdits {

    /** A local record (the server's state as last synced). */
    public record LocalRecord(String id, long version, boolean deleted, String payloadJson, Instant serverTime) { }

    /**
     * An outbox entry as shown to the user.
     *
     * @param state {@code pending}, {@code conflict} or {@code rejected} (or, in a damaged database,
     *     any other text, shown as it is)
     * @param serverVersion for conflicts: the server's version
     * @param serverPayloadJson for conflicts: the server's payload
     * @param rejectedReason for rejected entries: why the server refuses it (or why it cannot be sent)
     * @param rejectedAt for rejected entries: when it was set aside
     */
    public record OutboxItem(long seq, String changeId, String recordId, long baseVersion, boolean deleted,
                             String payloadJson, Instant createdAt, String state, long serverVersion,
                             String serverPayloadJson, Optional<String> rejectedReason, Optional<Instant> rejectedAt) {
        public boolean isConflict() {
            return "conflict".equals(state);
        }

        /** Waiting to be pushed. */
        public boolean isPending() {
            return "pending".equals(state);
        }

        /** Set aside: refused by the server for good (or not sendable); waits for the user. */
        public boolean isRejected() {
            return "rejected".equals(state);
        }

        /**
         * Set aside for the user to decide: rejected, or in a state this version does not know
         * (a damaged row, which would otherwise hold back later edits of its record forever).
         */
        public boolean isSetAside() {
            return !isPending() && !isConflict();
        }
    }

    private final Database db;
    private final TimeSource time;

    public JdbcLocalEdits(Database db, TimeSource time) {
        this.db = db;
        this.time = time;
    }

    /**
     * Adds a local edit to the outbox with the local record's version as its base. A later edit of a
     * record whose earlier edit is still unconfirmed is pushed only after that one is applied (and is
     * rebased on the version it produced) or resolved — never past a conflict.
     *
     * @param payloadJson a JSON object as text (validated by the caller); pushed as it is
     * @return the new entry's change id
     * @throws IllegalArgumentException naming the record, if its id is invalid or if a push of the
     *     edit alone would exceed the protocol's 5 MiB ({@link PushLimits#checkFits}); nothing is saved
     */
    public String addEdit(TaskKey key, String recordId, String payloadJson, boolean deleted) {
        validateRecordId(recordId);
        String changeId = UUID.randomUUID().toString();
        db.transaction("add a local edit of " + recordId + " for " + key, c -> {
            // The version this edit was made on. If an earlier edit of the record is still unconfirmed,
            // this one waits behind it and is rebased on the version that edit produces once applied.
            long base = localVersion(c, key, recordId);
            // An edit that can never be pushed is refused now, with the limit, instead of waiting
            // in the outbox for a push the server will always refuse.
            PushLimits.checkFits(new OutboxEntry(0, changeId, recordId, base, deleted, payloadJson, time.now()));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (user_id, scope, change_id, record_id,"
                    + " base_version, deleted, payload, created_at_ms, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, changeId);
                ps.setString(4, recordId);
                ps.setLong(5, base);
                ps.setBoolean(6, deleted);
                ps.setString(7, payloadJson);
                ps.setLong(8, time.now().toEpochMilli());
                ps.executeUpdate();
            }
            return null;
        });
        return changeId;
    }

    /**
     * Checks a record id: 1-255 characters, no control characters, no surrounding spaces.
     *
     * @return {@code recordId}
     * @throws IllegalArgumentException naming the bad id
     */
    public static String validateRecordId(String recordId) {
        if (recordId == null || recordId.isBlank() || recordId.length() > 255 || !recordId.equals(recordId.strip())
                || recordId.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("record id must be 1-255 characters without control characters or "
                    + "surrounding spaces, got '" + (recordId == null ? "null" : recordId.replaceAll("\\p{Cntrl}", "?")) + "'");
        }
        return recordId;
    }

    private static long localVersion(java.sql.Connection c, TaskKey key, String recordId) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT version FROM local_record WHERE user_id = ? AND scope = ? AND record_id = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, recordId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** The key's local records, by id. */
    public List<LocalRecord> records(TaskKey key) {
        return db.query("read records of " + key, c -> {
            List<LocalRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT record_id, version, deleted, payload, server_time_ms"
                    + " FROM local_record WHERE user_id = ? AND scope = ? ORDER BY " + db.dialect().textOrder("record_id"))) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new LocalRecord(rs.getString(1), rs.getLong(2), rs.getBoolean(3), rs.getString(4),
                                Instant.ofEpochMilli(rs.getLong(5))));
                    }
                }
            }
            return out;
        });
    }

    /** The key's outbox (pending and conflicting entries), oldest first. */
    public List<OutboxItem> outbox(TaskKey key) {
        return db.query("read the outbox of " + key, c -> {
            List<OutboxItem> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT seq, change_id, record_id, base_version, deleted,"
                    + " payload, created_at_ms, state, server_version, server_payload, rejected_reason, rejected_at_ms"
                    + " FROM outbox WHERE user_id = ? AND scope = ? ORDER BY seq")) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long rejectedAt = rs.getLong(12);
                        boolean noRejectedAt = rs.wasNull();
                        out.add(new OutboxItem(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                                rs.getBoolean(5), rs.getString(6), Instant.ofEpochMilli(rs.getLong(7)), rs.getString(8),
                                rs.getLong(9), rs.getString(10), Optional.ofNullable(rs.getString(11)),
                                noRejectedAt ? Optional.empty() : Optional.of(Instant.ofEpochMilli(rejectedAt))));
                    }
                }
            }
            return out;
        });
    }

    /** How many of the key's entries wait to be pushed. */
    public int pendingCount(TaskKey key) {
        return (int) outbox(key).stream().filter(OutboxItem::isPending).count();
    }

    /**
     * Discards an entry that was set aside ({@link OutboxItem#isSetAside}: rejected by the server, or
     * in a state this version does not know). The edit is gone for good; the next sync brings the
     * server's version of the record. Pending entries and conflicts are not touched here (conflicts:
     * {@link #takeTheirs}).
     *
     * @return false if the key has no such set-aside entry (nothing changed)
     */
    public boolean discardSetAside(TaskKey key, String changeId) {
        return db.transaction("discard set-aside edit " + changeId + " of " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM outbox WHERE user_id = ? AND scope = ?"
                    + " AND change_id = ? AND state NOT IN ('pending', 'conflict')")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, changeId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * Queues an entry that was set aside again, unchanged (its base version is kept: if the record
     * changed meanwhile, the push reports a conflict). For when the cause is gone — a server that
     * accepts larger requests now, a fixed server.
     *
     * @return false if the key has no such set-aside entry (nothing changed)
     * @throws IllegalArgumentException if the edit can never fit in a push ({@link PushLimits#checkFits});
     *     it stays set aside
     */
    public boolean sendAgain(TaskKey key, String changeId) {
        Optional<OutboxItem> item = outbox(key).stream()
                .filter(i -> i.changeId().equals(changeId) && i.isSetAside()).findFirst();
        if (item.isEmpty()) {
            return false;
        }
        OutboxItem i = item.get();
        PushLimits.checkFits(new OutboxEntry(i.seq(), i.changeId(), i.recordId(), i.baseVersion(), i.deleted(),
                i.payloadJson(), i.createdAt()));
        return db.transaction("send set-aside edit " + changeId + " of " + key + " again", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'pending', rejected_reason = NULL,"
                    + " rejected_at_ms = NULL WHERE user_id = ? AND scope = ? AND change_id = ?"
                    + " AND state NOT IN ('pending', 'conflict')")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, changeId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * Resolves a conflict by keeping the local edit: it is rebased on the server's version and
     * queued again.
     *
     * @return false if there is no such conflict for this key
     */
    public boolean keepMine(TaskKey key, String changeId) {
        return db.transaction("keep local edit " + changeId, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'pending',"
                    + " base_version = server_version, server_version = NULL, server_payload = NULL, server_deleted = NULL"
                    + " WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'conflict'")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, changeId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * Resolves a conflict by taking the server's version: the local edit is discarded (the user chose
     * so); the server's record is fetched by the next sync.
     *
     * @return false if there is no such conflict for this key
     */
    public boolean takeTheirs(TaskKey key, String changeId) {
        return db.transaction("discard local edit " + changeId, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM outbox WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'conflict'")) {
                JdbcLocalData.bindKey(ps, 1, key);
                ps.setString(3, changeId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** The local record, if present. */
    public Optional<LocalRecord> record(TaskKey key, String id) {
        return records(key).stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /**
     * This database's client id (random, created on first use), sent with pushes as {@code Client-Id}
     * so the server can keep fencing tokens per client.
     */
    public String clientId() {
        return db.transaction("read the client id", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT client_id FROM client_identity WHERE id = 1");
                 ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return rs.getString(1);
                }
            }
            String id = UUID.randomUUID().toString();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO client_identity (id, client_id) VALUES (1, ?)")) {
                ps.setString(1, id);
                // another process may insert first: then its id is read below (the transaction must survive that)
                db.dialect().recoverably(c, x -> ps.executeUpdate());
            } catch (java.sql.SQLException e) {
                if (!db.dialect().isDuplicateKey(e)) {
                    throw e;
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT client_id FROM client_identity WHERE id = 1");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        });
    }
}
