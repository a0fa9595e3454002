package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.leasesync.registry.Fence;
import org.leasesync.registry.LeaseRecord;
import org.leasesync.registry.LeaseStore;
import org.leasesync.registry.OwnerId;
import org.leasesync.registry.StoreException;
import org.leasesync.registry.TaskKey;

/**
 * Lease rows in SQL. The grant algorithm (one atomic conditional write per attempt):
 * <ol>
 *   <li>{@code UPDATE lease SET owner = me, epoch = epoch + 1, heartbeat = heartbeat + 1, ...
 *       WHERE task_key = ? AND (owner_id IS NULL OR (owner_id = ? AND epoch = ? AND heartbeat = ?))}
 *       — the second branch only with a takeover candidate, matching exactly the observed row.</li>
 *   <li>If no row was updated and the key has no row yet: {@code INSERT} with epoch 1; a
 *       unique-key violation means another owner inserted first (contention).</li>
 * </ol>
 * The registry's fast path for a key that was granted before and is free now is
 * {@link #grantIfFree}: the same conditional {@code UPDATE} (free branch only) as one auto-commit
 * statement that also returns the new row ({@link SqlDialect#returning}).
 * Renew and release are {@code UPDATE ... WHERE task_key = ? AND owner_id = ? AND epoch = ?}; zero
 * rows means the fence is no longer current.
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcLeaseStore implements LeaseStore {

    private static final String COLUMNS =
            "task_key, owner_id, epoch, heartbeat, ttl_ms, granted_at_ms, renewed_at_ms, expires_at_ms";

    /** The grant's conditional update up to its free branch; parameters 1–6 bound by {@link #bindGrant}. */
    private static final String GRANT_IF_FREE = "UPDATE lease SET owner_id = ?, epoch = epoch + 1,"
            + " heartbeat = heartbeat + 1, ttl_ms = ?, granted_at_ms = ?, renewed_at_ms = ?, expires_at_ms = ?"
            + " WHERE task_key = ? AND (owner_id IS NULL";

    private final Database db;

    public JdbcLeaseStore(Database db) {
        this.db = db;
    }

    @Override
    public Optional<LeaseRecord> tryGrant(TaskKey key, OwnerId owner, Duration ttl, Instant now,
                                          Optional<LeaseRecord> takeOver) {
        return emptyOnContention(() -> db.transaction("grant the lease for " + key, c -> {
            if (conditionalUpdate(c, key, owner, ttl, now, takeOver) == 1) {
                return readRow(c, key);
            }
            if (takeOver.isEmpty() && !rowExists(c, key) && insert(c, key, owner, ttl, now)) {
                return readRow(c, key);
            }
            return Optional.empty();
        }));
    }

    @Override
    public Optional<LeaseRecord> grantIfFree(TaskKey key, OwnerId owner, Duration ttl, Instant now) {
        String sql = db.dialect().returning(GRANT_IF_FREE + ")", COLUMNS);
        return emptyOnContention(() -> db.query("grant the lease for " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bindGrant(ps, key, owner, ttl, now);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? map(rs) : Optional.<LeaseRecord>empty();
                }
            }
        }));
    }

    /** A grant that lost to another owner in the database (lock timeout, serialization) is "not granted". */
    private Optional<LeaseRecord> emptyOnContention(java.util.function.Supplier<Optional<LeaseRecord>> grant) {
        try {
            return grant.get();
        } catch (StoreException e) {
            if (e.getCause() instanceof SQLException sql && db.dialect().isContention(sql)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static void bindGrant(PreparedStatement ps, TaskKey key, OwnerId owner, Duration ttl, Instant now)
            throws SQLException {
        long nowMs = now.toEpochMilli();
        ps.setString(1, owner.asString());
        ps.setLong(2, ttl.toMillis());
        ps.setLong(3, nowMs);
        ps.setLong(4, nowMs);
        ps.setLong(5, nowMs + ttl.toMillis());
        ps.setString(6, key.asString());
    }

    private int conditionalUpdate(Connection c, TaskKey key, OwnerId owner, Duration ttl, Instant now,
                                  Optional<LeaseRecord> takeOver) throws SQLException {
        String sql = GRANT_IF_FREE + (takeOver.isPresent() ? " OR (owner_id = ? AND epoch = ? AND heartbeat = ?))" : ")");
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindGrant(ps, key, owner, ttl, now);
            if (takeOver.isPresent()) {
                LeaseRecord seen = takeOver.get();
                ps.setString(7, seen.owner().map(OwnerId::asString).orElse(""));
                ps.setLong(8, seen.epoch());
                ps.setLong(9, seen.heartbeat());
            }
            return ps.executeUpdate();
        }
    }

    private boolean insert(Connection c, TaskKey key, OwnerId owner, Duration ttl, Instant now) throws SQLException {
        long nowMs = now.toEpochMilli();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO lease (" + COLUMNS + ") VALUES (?, ?, 1, 1, ?, ?, ?, ?)")) {
            ps.setString(1, key.asString());
            ps.setString(2, owner.asString());
            ps.setLong(3, ttl.toMillis());
            ps.setLong(4, nowMs);
            ps.setLong(5, nowMs);
            ps.setLong(6, nowMs + ttl.toMillis());
            ps.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (db.dialect().isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    private boolean rowExists(Connection c, TaskKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM lease WHERE task_key = ?")) {
            ps.setString(1, key.asString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Override
    public boolean renew(Fence fence, Duration ttl, Instant now) {
        long nowMs = now.toEpochMilli();
        return db.query("renew the lease for " + fence.key(), c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lease SET heartbeat = heartbeat + 1, ttl_ms = ?, renewed_at_ms = ?, expires_at_ms = ?"
                            + " WHERE task_key = ? AND owner_id = ? AND epoch = ?")) {
                ps.setLong(1, ttl.toMillis());
                ps.setLong(2, nowMs);
                ps.setLong(3, nowMs + ttl.toMillis());
                bindFence(ps, 4, fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean release(Fence fence, Instant now) {
        long nowMs = now.toEpochMilli();
        return db.query("release the lease for " + fence.key(), c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lease SET owner_id = NULL, heartbeat = heartbeat + 1, renewed_at_ms = ?, expires_at_ms = ?"
                            + " WHERE task_key = ? AND owner_id = ? AND epoch = ?")) {
                ps.setLong(1, nowMs);
                ps.setLong(2, nowMs);
                bindFence(ps, 3, fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Optional<LeaseRecord> read(TaskKey key) {
        return db.query("read the lease for " + key, c -> readRow(c, key));
    }

    @Override
    public List<LeaseRecord> readAll() {
        return db.query("list leases", c -> {
            List<LeaseRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lease ORDER BY task_key");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    map(rs).ifPresent(out::add);
                }
            }
            return out;
        });
    }

    private Optional<LeaseRecord> readRow(Connection c, TaskKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lease WHERE task_key = ?")) {
            ps.setString(1, key.asString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? map(rs) : Optional.empty();
            }
        }
    }

    private static void bindFence(PreparedStatement ps, int from, Fence fence) throws SQLException {
        ps.setString(from, fence.key().asString());
        ps.setString(from + 1, fence.owner().asString());
        ps.setLong(from + 2, fence.epoch());
    }

    /** Maps a row; an unreadable row (corrupt key or owner text) raises a clear StoreException. */
    private Optional<LeaseRecord> map(ResultSet rs) throws SQLException {
        String keyText = rs.getString(1);
        String ownerText = rs.getString(2);
        try {
            TaskKey key = TaskKey.parse(keyText);
            Optional<OwnerId> owner = ownerText == null ? Optional.empty() : Optional.of(OwnerId.parse(ownerText));
            return Optional.of(new LeaseRecord(key, owner, rs.getLong(3), rs.getLong(4),
                    Duration.ofMillis(rs.getLong(5)), Instant.ofEpochMilli(rs.getLong(7)),
                    Instant.ofEpochMilli(rs.getLong(8))));
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable lease row '" + keyText + "' in " + db.description() + ": "
                    + e.getMessage());
        }
    }
}
