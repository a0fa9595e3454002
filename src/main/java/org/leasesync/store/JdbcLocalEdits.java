package org.leasesync.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.protocol.RecordLimits;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushLimits;

/**
 * The user's side of the local data: reading records, making edits (which go to the outbox),
 * and resolving conflicts. Edits are not run writes: they take no lease. Every query is scoped
 * to one user and scope (invariant 8, accounts are isolated: docs/architecture.md).
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcLocalEdits {

    /** A local record (the server's state as last synced). */
    public record LocalRecord(String id, long version, boolean deleted, String payloadJson, Instant serverTime) {}

    /**
     * An outbox entry as shown to the user.
     *
     * @param state {@code pending}, {@code conflict} or {@code rejected} (or, in a damaged database,
     *     any other text, shown as it is)
     * @param serverVersion for conflicts: the server's version (0 = the server has no such record)
     * @param serverDeleted for conflicts: whether the server deleted the record
     * @param serverPayloadJson for conflicts: the server's payload ({@code {}} when deleted or absent)
     * @param rejectedReason for rejected entries: why the server refuses it (or why it cannot be sent)
     * @param rejectedAt for rejected entries: when it was set aside
     */
    public record OutboxItem(
            long seq,
            String changeId,
            String recordId,
            long baseVersion,
            boolean deleted,
            String payloadJson,
            Instant createdAt,
            String state,
            long serverVersion,
            boolean serverDeleted,
            String serverPayloadJson,
            Optional<String> rejectedReason,
            Optional<Instant> rejectedAt) {
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

        /**
         * A conflict with a record the server no longer has (deleted there, or absent): keeping this
         * edit restores the record.
         */
        public boolean serverLacksRecord() {
            return isConflict() && (serverDeleted || serverVersion == 0);
        }

        /**
         * The server's side of a conflict in plain words: {@code "deleted on the server (v3)"},
         * {@code "not on the server"} or {@code "v3 {...}"}; {@code ""} for a pending entry.
         */
        public String serverSide() {
            if (!isConflict()) {
                return "";
            }
            if (serverDeleted) {
                return "deleted on the server (v" + serverVersion + ")";
            }
            return serverVersion == 0 ? "not on the server" : "v" + serverVersion + " " + serverPayloadJson;
        }

        /**
         * What keeping this edit of a conflict does, in plain words, e.g. {@code "the next sync
         * restores course-1, which was deleted on the server"}.
         */
        public String keepMineMeans() {
            if (serverDeleted) {
                return "the next sync restores " + recordId + ", which was deleted on the server";
            }
            if (serverVersion == 0) {
                return "the next sync creates " + recordId + " again, which is not on the server";
            }
            return "the next sync pushes it over the server's version " + serverVersion + " of " + recordId;
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
        return saveEdit(key, recordId, payloadJson, deleted, OptionalLong.empty())
                .changeId();
    }

    /**
     * Saves a local edit based on the version the user saw ({@code seenVersion}: the version shown
     * when the user began editing, {@code edit --base-version}; empty = whatever this device has now).
     * If the record changed since — another device's version was pulled meanwhile — the edit is saved
     * as a conflict with that version, never silently on top of it. Serialised with confirming a push
     * of the same record, so an edit saved while the previous one is being confirmed is based on the
     * confirmed version (docs/architecture.md, "Edits and the versions they are based on"). Blocks on
     * the database.
     *
     * @param payloadJson a JSON object as text (validated by the caller)
     * @throws IllegalArgumentException naming a bad record id or a negative seen version
     */
    public SavedEdit saveEdit(
            TaskKey key, String recordId, String payloadJson, boolean deleted, OptionalLong seenVersion) {
        validateRecordId(recordId);
        if (seenVersion.isPresent() && seenVersion.getAsLong() < 0) {
            throw new IllegalArgumentException("the base version must be >= 0, got " + seenVersion.getAsLong());
        }
        return db.transaction(
                "add a local edit of " + recordId + " for " + key,
                c -> EditWrites.save(c, db.dialect(), key, recordId, payloadJson, deleted, seenVersion, time.now()));
    }

    /**
     * Checks a record id against {@link RecordLimits#idProblem}: 1-255 characters, no control
     * characters, no surrounding spaces, no unpaired surrogates.
     *
     * @return {@code recordId}
     * @throws IllegalArgumentException naming the bad id and what is wrong with it
     */
    public static String validateRecordId(String recordId) {
        java.util.Optional<String> problem = RecordLimits.idProblem(recordId, "record id");
        if (problem.isPresent()) {
            throw new IllegalArgumentException(problem.get());
        }
        return recordId;
    }

    /** The key's local records, by id. */
    public List<LocalRecord> records(TaskKey key) {
        return db.query("read records of " + key, c -> {
            List<LocalRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT record_id, version, deleted, payload, server_time_ms"
                    + " FROM local_record WHERE user_id = ? AND scope = ? ORDER BY "
                    + db.dialect().textOrder("record_id"))) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new LocalRecord(
                                rs.getString(1),
                                rs.getLong(2),
                                rs.getBoolean(3),
                                rs.getString(4),
                                Instant.ofEpochMilli(rs.getLong(5))));
                    }
                }
            }
            return out;
        });
    }

    /**
     * One page of the key's local records, by id (the order of {@link #records}): the first
     * {@code limit} records whose id sorts after {@code afterId} (all when empty). Reads only that
     * page (keyset paging on the primary key), however many records the key has. Blocks.
     *
     * @param limit 1..10,000 records
     * @return at most {@code limit} records; fewer (or none) at the end
     * @throws IllegalArgumentException if {@code limit} is out of range
     */
    public List<LocalRecord> recordsPage(TaskKey key, Optional<String> afterId, int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("records page size must be 1..10000, got " + limit);
        }
        String order = db.dialect().textOrder("record_id");
        // ORDER BY the whole primary key (user_id, scope, record_id): H2 walks the index in order, and
        // stops after the page, only when the ORDER BY matches it from its first column; ordered by
        // record_id alone it read and sorted every record of the key (2.8 s for 1,000,000).
        return db.query("read a page of records of " + key, c -> {
            List<LocalRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT record_id, version, deleted, payload, server_time_ms"
                    + " FROM local_record WHERE user_id = ? AND scope = ?"
                    + (afterId.isPresent() ? " AND " + order + " > ?" : "")
                    + " ORDER BY user_id, scope, " + order + " FETCH FIRST ? ROWS ONLY")) {
                JdbcLocalData.bindKey(ps, 1, key);
                int i = 3;
                if (afterId.isPresent()) {
                    ps.setString(i++, afterId.get());
                }
                ps.setInt(i, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new LocalRecord(
                                rs.getString(1),
                                rs.getLong(2),
                                rs.getBoolean(3),
                                rs.getString(4),
                                Instant.ofEpochMilli(rs.getLong(5))));
                    }
                }
            }
            return out;
        });
    }

    /** How many local records the key has. Blocks; reads the key's whole primary-key range (O(records)). */
    public long recordCount(TaskKey key) {
        return db.query("count records of " + key, c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT COUNT(*) FROM local_record WHERE user_id = ? AND scope = ?")) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    /** The key's outbox (pending and conflicting entries), oldest first. */
    public List<OutboxItem> outbox(TaskKey key) {
        return db.query("read the outbox of " + key, c -> {
            List<OutboxItem> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT seq, change_id, record_id, base_version, deleted,"
                    + " payload, created_at_ms, state, server_version, server_deleted, server_payload, rejected_reason,"
                    + " rejected_at_ms FROM outbox WHERE user_id = ? AND scope = ? ORDER BY seq")) {
                JdbcLocalData.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long rejectedAt = rs.getLong(13);
                        boolean noRejectedAt = rs.wasNull();
                        out.add(new OutboxItem(
                                rs.getLong(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getLong(4),
                                rs.getBoolean(5),
                                rs.getString(6),
                                Instant.ofEpochMilli(rs.getLong(7)),
                                rs.getString(8),
                                rs.getLong(9),
                                rs.getBoolean(10),
                                rs.getString(11),
                                Optional.ofNullable(rs.getString(12)),
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
                .filter(i -> i.changeId().equals(changeId) && i.isSetAside())
                .findFirst();
        if (item.isEmpty()) {
            return false;
        }
        OutboxItem i = item.get();
        PushLimits.checkFits(new OutboxEntry(
                i.seq(), i.changeId(), i.recordId(), i.baseVersion(), i.deleted(), i.payloadJson(), i.createdAt()));
        return db.transaction("send set-aside edit " + changeId + " of " + key + " again", c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE outbox SET state = 'pending', rejected_reason = NULL,"
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
     * queued again; the server's version is kept as a conflict copy ({@link ConflictCopies}). When the
     * server deleted the record (or does not have it), pushing the edit restores it
     * ({@link OutboxItem#serverLacksRecord()}; callers say so).
     *
     * @return false if there is no such conflict for this key
     */
    public boolean keepMine(TaskKey key, String changeId) {
        return new ConflictCopies(db, time)
                .resolve(key, changeId, ConflictCopies.Choice.KEEP_MINE, Optional.empty())
                .isPresent();
    }

    /**
     * Resolves a conflict by taking the server's version: the local edit leaves the outbox and is kept
     * as a conflict copy ({@link ConflictCopies}); the server's record is fetched by the next sync.
     *
     * @return false if there is no such conflict for this key
     */
    public boolean takeTheirs(TaskKey key, String changeId) {
        return new ConflictCopies(db, time)
                .resolve(key, changeId, ConflictCopies.Choice.TAKE_SERVERS, Optional.empty())
                .isPresent();
    }

    /** The key's outbox entry with {@code changeId}, if any. */
    public Optional<OutboxItem> entry(TaskKey key, String changeId) {
        return outbox(key).stream().filter(i -> i.changeId().equals(changeId)).findFirst();
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
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO client_identity (id, client_id) VALUES (1, ?)")) {
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
