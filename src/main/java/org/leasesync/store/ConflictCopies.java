package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushLimits;

/**
 * Resolving a conflict of the outbox without losing either side: the side not kept is saved as a
 * <em>conflict copy</em> (table {@code conflict_copy}, client migration V14) in the same transaction,
 * and stays until the user restores it (its content becomes a new edit, pushed by the next sync) or
 * deletes it — as file-sync clients keep a "conflicted copy" (docs/architecture.md, "Conflict copies").
 *
 * <p>Every method is one transaction, scoped to one user and scope; thread-safe; blocks on the
 * database (and, for {@link #resolve} and {@link #restore}, on the record's lock while a push of the
 * same record is being confirmed).
 */
public final class ConflictCopies {

    /** Whose version a copy holds. */
    public enum Side {
        /** This device's edit, discarded by taking the server's version. */
        MINE,
        /** The server's version, overwritten by keeping (or editing and keeping) this device's edit. */
        SERVER;

        /** {@code mine} or {@code server}, as stored. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Side parse(String stored) {
            return "mine".equals(stored) ? MINE : SERVER;
        }
    }

    /** What the user chose for a conflict. */
    public enum Choice {
        /** The edit is rebased on the server's version and pushed; the server's version is copied. */
        KEEP_MINE,
        /** The edit is dropped; it is copied. */
        TAKE_SERVERS,
        /** As {@link #KEEP_MINE}, with the content the user edited; the server's version is copied. */
        EDIT_AND_KEEP
    }

    /**
     * A conflict copy. Immutable.
     *
     * @param id the copy's id, to restore or delete it
     * @param version {@link Side#MINE}: the version the edit was based on; {@link Side#SERVER}: the
     *     server's version (0 = the server had no such record)
     * @param payloadJson the content ({@code {}} for a deletion or a missing record)
     * @param madeAt {@link Side#MINE}: when the edit was made; {@link Side#SERVER}: when the server
     *     applied that version, when this device had synced it; empty when unknown
     * @param resolvedAt when the conflict was resolved
     */
    public record Copy(
            long id,
            String recordId,
            String changeId,
            Side side,
            long version,
            boolean deleted,
            String payloadJson,
            Optional<Instant> madeAt,
            Instant resolvedAt) {
        public Copy {
            Objects.requireNonNull(recordId, "recordId");
            Objects.requireNonNull(changeId, "changeId");
            Objects.requireNonNull(side, "side");
            Objects.requireNonNull(payloadJson, "payloadJson");
            Objects.requireNonNull(madeAt, "madeAt");
            Objects.requireNonNull(resolvedAt, "resolvedAt");
        }
    }

    /**
     * A resolved conflict.
     *
     * @param conflict the conflict as it was before
     * @param choice what was done
     * @param copy where the side not kept went
     */
    public record Resolution(JdbcLocalEdits.OutboxItem conflict, Choice choice, Copy copy) {}

    /**
     * A restored copy.
     *
     * @param copy the copy, now deleted
     * @param edit the edit saved with its content (a conflict when another version of the record
     *     arrived meanwhile: never on top of it unseen)
     */
    public record Restored(Copy copy, SavedEdit edit) {}

    private static final String COLUMNS =
            "id, record_id, change_id, side, version, deleted, payload, made_at_ms," + " resolved_at_ms";

    private final Database db;
    private final TimeSource time;

    public ConflictCopies(Database db, TimeSource time) {
        this.db = Objects.requireNonNull(db);
        this.time = Objects.requireNonNull(time);
    }

    /**
     * Resolves the conflict {@code changeId} of {@code key} as {@code choice} and keeps the side not
     * kept as a copy, in one transaction.
     *
     * @param editedPayloadJson for {@link Choice#EDIT_AND_KEEP}: the content to keep, a JSON object as
     *     text (validated by the caller); ignored otherwise
     * @return empty if the key has no such conflict (nothing changed)
     * @throws IllegalArgumentException if {@link Choice#EDIT_AND_KEEP} comes without content, or the
     *     edited content can never fit in a push ({@link PushLimits#checkFits}); nothing changed
     */
    public Optional<Resolution> resolve(
            TaskKey key, String changeId, Choice choice, Optional<String> editedPayloadJson) {
        Objects.requireNonNull(choice, "choice");
        if (choice == Choice.EDIT_AND_KEEP && editedPayloadJson.isEmpty()) {
            throw new IllegalArgumentException("edit and keep needs the edited content of change " + changeId);
        }
        Instant now = time.now();
        return db.transaction("resolve conflict " + changeId + " of " + key, c -> {
            Optional<JdbcLocalEdits.OutboxItem> found = conflict(c, key, changeId);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            RecordLocks.lock(c, db.dialect(), key, found.get().recordId());
            found = conflict(c, key, changeId); // read again under the record's lock
            if (found.isEmpty()) {
                return Optional.empty();
            }
            JdbcLocalEdits.OutboxItem i = found.get();
            if (choice == Choice.EDIT_AND_KEEP) {
                PushLimits.checkFits(new OutboxEntry(
                        i.seq(),
                        i.changeId(),
                        i.recordId(),
                        i.serverVersion(),
                        false,
                        editedPayloadJson.get(),
                        i.createdAt()));
            }
            Copy copy = choice == Choice.TAKE_SERVERS
                    ? insert(
                            c,
                            key,
                            i,
                            Side.MINE,
                            i.baseVersion(),
                            i.deleted(),
                            i.payloadJson(),
                            Optional.of(i.createdAt()),
                            now)
                    : insert(
                            c,
                            key,
                            i,
                            Side.SERVER,
                            i.serverVersion(),
                            i.serverDeleted(),
                            i.serverPayloadJson() == null ? "{}" : i.serverPayloadJson(),
                            serverTime(c, key, i),
                            now);
            String sql = switch (choice) {
                case TAKE_SERVERS ->
                    "DELETE FROM outbox WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'conflict'";
                case KEEP_MINE ->
                    "UPDATE outbox SET state = 'pending', base_version = server_version, server_version = NULL,"
                            + " server_payload = NULL, server_deleted = NULL"
                            + " WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'conflict'";
                case EDIT_AND_KEEP ->
                    "UPDATE outbox SET state = 'pending', base_version = server_version, server_version = NULL,"
                            + " server_payload = NULL, server_deleted = NULL, deleted = FALSE, payload = ?"
                            + " WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'conflict'";
            };
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int at = 1;
                if (choice == Choice.EDIT_AND_KEEP) {
                    ps.setString(at++, editedPayloadJson.get());
                }
                JdbcLocalData.bindKey(ps, at, key);
                ps.setString(at + 2, changeId);
                ps.executeUpdate();
            }
            return Optional.of(new Resolution(i, choice, copy));
        });
    }

    /**
     * When the server applied the version a conflict has from it: known when this device has synced
     * that version (its {@code serverTime}); empty otherwise (a push answered with a newer version).
     */
    public Optional<Instant> serverVersionTime(TaskKey key, JdbcLocalEdits.OutboxItem conflict) {
        return db.query(
                "read when version " + conflict.serverVersion() + " of " + conflict.recordId() + " was made",
                c -> serverTime(c, key, conflict));
    }

    /**
     * How many conflicts wait in each scope's outbox of {@code userId}: one grouped count, no payload
     * read. A scope without conflicts is absent.
     */
    public java.util.Map<org.leasesync.lease.Scope, Integer> conflictCounts(String userId) {
        return db.query("count the conflicts of " + userId, c -> {
            java.util.Map<org.leasesync.lease.Scope, Integer> out =
                    new java.util.EnumMap<>(org.leasesync.lease.Scope.class);
            try (PreparedStatement ps = c.prepareStatement("SELECT scope, COUNT(*) FROM outbox WHERE user_id = ?"
                    + " AND state = 'conflict' GROUP BY scope")) {
                ps.setString(1, userId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        // a scope this version does not know (a newer one wrote it) has no card to show it on
                        for (org.leasesync.lease.Scope s : org.leasesync.lease.Scope.values()) {
                            if (s.wireName().equals(rs.getString(1))) {
                                out.put(s, rs.getInt(2));
                            }
                        }
                    }
                }
            }
            return out;
        });
    }

    /** The key's conflict copies, oldest first (empty: none). */
    public List<Copy> list(TaskKey key) {
        return db.query("read the conflict copies of " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + COLUMNS + " FROM conflict_copy WHERE user_id = ? AND scope = ? ORDER BY id")) {
                JdbcLocalData.bindKey(ps, 1, key);
                return read(ps);
            }
        });
    }

    /** The key's copy {@code id}, if there is one. */
    public Optional<Copy> copy(TaskKey key, long id) {
        return db.query("read conflict copy " + id + " of " + key, c -> find(c, key, id));
    }

    /**
     * Restores a copy: its content is saved as a new edit of its record, based on the version this
     * device has now (as any edit; a later edit of the same record waits behind an unconfirmed one),
     * and the copy is deleted, in one transaction.
     *
     * @return empty if the key has no such copy (nothing changed)
     * @throws IllegalArgumentException if the content can never fit in a push; the copy stays
     */
    public Optional<Restored> restore(TaskKey key, long id) {
        Instant now = time.now();
        return db.transaction("restore conflict copy " + id + " of " + key, c -> {
            Optional<Copy> copy = find(c, key, id);
            if (copy.isEmpty()) {
                return Optional.empty();
            }
            Copy k = copy.get();
            SavedEdit edit = EditWrites.save(
                    c, db.dialect(), key, k.recordId(), k.payloadJson(), k.deleted(), OptionalLong.empty(), now);
            delete(c, key, id);
            return Optional.of(new Restored(k, edit));
        });
    }

    /**
     * Deletes a copy for good.
     *
     * @return false if the key has no such copy (nothing changed)
     */
    public boolean delete(TaskKey key, long id) {
        return db.transaction("delete conflict copy " + id + " of " + key, c -> delete(c, key, id));
    }

    private static boolean delete(Connection c, TaskKey key, long id) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM conflict_copy WHERE user_id = ? AND scope = ? AND id = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setLong(3, id);
            return ps.executeUpdate() == 1;
        }
    }

    private static Optional<Copy> find(Connection c, TaskKey key, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT " + COLUMNS + " FROM conflict_copy WHERE user_id = ? AND scope = ? AND id = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setLong(3, id);
            return read(ps).stream().findFirst();
        }
    }

    private static List<Copy> read(PreparedStatement ps) throws SQLException {
        List<Copy> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long made = rs.getLong(8);
                Optional<Instant> madeAt = rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(made));
                out.add(new Copy(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        Side.parse(rs.getString(4)),
                        rs.getLong(5),
                        rs.getBoolean(6),
                        rs.getString(7),
                        madeAt,
                        Instant.ofEpochMilli(rs.getLong(9))));
            }
        }
        return out;
    }

    private static Copy insert(
            Connection c,
            TaskKey key,
            JdbcLocalEdits.OutboxItem i,
            Side side,
            long version,
            boolean deleted,
            String payload,
            Optional<Instant> madeAt,
            Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO conflict_copy (user_id, scope, record_id, change_id,"
                        + " side, version, deleted, payload, made_at_ms, resolved_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                new String[] {"id"})) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, i.recordId());
            ps.setString(4, i.changeId());
            ps.setString(5, side.wireName());
            ps.setLong(6, version);
            ps.setBoolean(7, deleted);
            ps.setString(8, payload);
            if (madeAt.isPresent()) {
                ps.setLong(9, madeAt.get().toEpochMilli());
            } else {
                ps.setNull(9, java.sql.Types.BIGINT);
            }
            ps.setLong(10, now.toEpochMilli());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return new Copy(
                        keys.getLong(1), i.recordId(), i.changeId(), side, version, deleted, payload, madeAt, now);
            }
        }
    }

    /** When the server applied the conflict's server version: known when this device has that version. */
    private static Optional<Instant> serverTime(Connection c, TaskKey key, JdbcLocalEdits.OutboxItem i)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT server_time_ms FROM local_record"
                + " WHERE user_id = ? AND scope = ? AND record_id = ? AND version = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, i.recordId());
            ps.setLong(4, i.serverVersion());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(Instant.ofEpochMilli(rs.getLong(1))) : Optional.empty();
            }
        }
    }

    private static Optional<JdbcLocalEdits.OutboxItem> conflict(Connection c, TaskKey key, String changeId)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT seq, record_id, base_version, deleted, payload,"
                + " created_at_ms, server_version, server_deleted, server_payload FROM outbox"
                + " WHERE user_id = ? AND scope = ? AND change_id = ? AND state = 'conflict'")) {
            JdbcLocalData.bindKey(ps, 1, key);
            ps.setString(3, changeId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new JdbcLocalEdits.OutboxItem(
                        rs.getLong(1),
                        changeId,
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getBoolean(4),
                        rs.getString(5),
                        Instant.ofEpochMilli(rs.getLong(6)),
                        "conflict",
                        rs.getLong(7),
                        rs.getBoolean(8),
                        rs.getString(9),
                        Optional.empty(),
                        Optional.empty()));
            }
        }
    }
}
