package org.leasesync.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.registry.Fence;
import org.leasesync.registry.LeaseKey;
import org.leasesync.registry.LeaseRecord;
import org.leasesync.registry.LeaseStore;
import org.leasesync.registry.OwnerId;
import org.leasesync.registry.StoreException;

/**
 * Lease rows in SQL, for any {@link LeaseKey} (task keys and job keys share the table; the column
 * {@code task_key} holds the key's written form, {@code userId|scope} or {@code job:name}). Runs over
 * any {@link SqlDatabase} whose schema holds the lease table ({@code lease-table-h2.sql} /
 * {@code lease-table-postgresql.sql} next to this class). The grant algorithm (one atomic
 * conditional write per attempt):
 * <ol>
 *   <li>{@code UPDATE lease SET owner = me, epoch = epoch + 1, heartbeat = heartbeat + 1, ...
 *       WHERE task_key = ? AND (owner_id IS NULL OR (owner_id = ? AND epoch = ? AND heartbeat = ?))}
 *       — the second branch only with a takeover candidate, matching exactly the observed row.</li>
 *   <li>If no row was updated and the key has no row yet: {@code INSERT} with epoch 1; a
 *       unique-key violation means another owner inserted first (contention). The insert runs
 *       {@linkplain SqlDialect#recoverably recoverably}, so on PostgreSQL the violation does not
 *       abort the transaction (25P02) and the answer is "not granted", not an error.</li>
 * </ol>
 * The registry's fast path for a key that was granted before and is free now is
 * {@link #grantIfFree}: the same conditional {@code UPDATE} (free branch only) as one auto-commit
 * statement that also returns the new row ({@link SqlDialect#returning}: PostgreSQL's
 * {@code UPDATE ... RETURNING}, H2's {@code FINAL TABLE}).
 * Renew, release and raising the epoch are {@code UPDATE ... WHERE task_key = ? AND owner_id = ? AND
 * epoch = ?}; zero rows means the fence is no longer current.
 *
 * <p>A grant that loses a race inside the database — a unique-key violation, a lock timeout, a
 * deadlock or a serialization failure ({@link SqlDialect#isDuplicateKey},
 * {@link SqlDialect#isContention}) — answers empty (contention); any other failure is a
 * {@link StoreException}.
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

    private final SqlDatabase db;

    /** @param db the database holding the lease table (the client's {@link Database}, or a server's) */
    public JdbcLeaseStore(SqlDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    /**
     * The {@code CREATE TABLE lease} statement this store needs, for another schema to include
     * (the text of {@code org/leasesync/store/lease-table-h2.sql} or {@code lease-table-postgresql.sql}).
     *
     * @throws IllegalStateException if the resource is missing from the class path (a broken build)
     */
    public static String leaseTableSql(SqlDialect dialect) {
        String name = "lease-table-" + dialect.name().toLowerCase(Locale.ROOT) + ".sql";
        try (InputStream in = JdbcLeaseStore.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the resource org/leasesync/store/" + name + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read org/leasesync/store/" + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<LeaseRecord> tryGrant(LeaseKey key, OwnerId owner, Duration ttl, Instant now,
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
    public Optional<LeaseRecord> grantIfFree(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
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

    /**
     * A grant that lost to another owner in the database (duplicate key, lock timeout, deadlock,
     * serialization) is "not granted".
     */
    private Optional<LeaseRecord> emptyOnContention(java.util.function.Supplier<Optional<LeaseRecord>> grant) {
        try {
            return grant.get();
        } catch (StoreException e) {
            if (e.getCause() instanceof SQLException sql
                    && (db.dialect().isContention(sql) || db.dialect().isDuplicateKey(sql))) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static void bindGrant(PreparedStatement ps, LeaseKey key, OwnerId owner, Duration ttl, Instant now)
            throws SQLException {
        long nowMs = now.toEpochMilli();
        ps.setString(1, owner.asString());
        ps.setLong(2, ttl.toMillis());
        ps.setLong(3, nowMs);
        ps.setLong(4, nowMs);
        ps.setLong(5, nowMs + ttl.toMillis());
        ps.setString(6, key.asString());
    }

    private int conditionalUpdate(Connection c, LeaseKey key, OwnerId owner, Duration ttl, Instant now,
                                  Optional<LeaseRecord> takeOver) throws SQLException {
        String sql = GRANT_IF_FREE + (takeOver.isPresent() ? " OR (owner_id = ? AND epoch = ? AND heartbeat = ?))" : ")");
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindGrant(ps, key, owner, ttl, now);
            if (takeOver.isPresent()) {
                LeaseRecord seen = takeOver.get();
                ps.setString(7, seen.ownerText() == null ? "" : seen.ownerText());   // as stored, also when unreadable
                ps.setLong(8, seen.epoch());
                ps.setLong(9, seen.heartbeat());
            }
            return ps.executeUpdate();
        }
    }

    private boolean insert(Connection c, LeaseKey key, OwnerId owner, Duration ttl, Instant now) throws SQLException {
        long nowMs = now.toEpochMilli();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO lease (" + COLUMNS + ") VALUES (?, ?, 1, 1, ?, ?, ?, ?)")) {
            ps.setString(1, key.asString());
            ps.setString(2, owner.asString());
            ps.setLong(3, ttl.toMillis());
            ps.setLong(4, nowMs);
            ps.setLong(5, nowMs);
            ps.setLong(6, nowMs + ttl.toMillis());
            // A duplicate key is an expected answer: on PostgreSQL it must not abort the transaction.
            db.dialect().recoverably(c, x -> ps.executeUpdate());
            return true;
        } catch (SQLException e) {
            if (db.dialect().isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    private boolean rowExists(Connection c, LeaseKey key) throws SQLException {
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
    public boolean raiseEpoch(Fence fence, long newEpoch, Instant now) {
        if (newEpoch <= fence.epoch()) {
            throw new IllegalArgumentException("the new epoch must be above " + fence.epoch() + ", got " + newEpoch);
        }
        long nowMs = now.toEpochMilli();
        return db.query("raise the epoch of " + fence.key(), c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lease SET epoch = ?, heartbeat = heartbeat + 1, renewed_at_ms = ?,"
                            + " expires_at_ms = ? + ttl_ms WHERE task_key = ? AND owner_id = ? AND epoch = ?")) {
                ps.setLong(1, newEpoch);
                ps.setLong(2, nowMs);
                ps.setLong(3, nowMs);
                bindFence(ps, 4, fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Optional<LeaseRecord> read(LeaseKey key) {
        return db.query("read the lease for " + key, c -> readRow(c, key));
    }

    @Override
    public List<LeaseRecord> readAll() {
        return db.query("list leases", c -> {
            List<LeaseRecord> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lease ORDER BY "
                    + db.dialect().textOrder("task_key"));
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    map(rs).ifPresent(out::add);
                }
            }
            return out;
        });
    }

    private Optional<LeaseRecord> readRow(Connection c, LeaseKey key) throws SQLException {
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

    /**
     * Maps a row. An owner id that cannot be parsed (a damaged row) is kept as text: the key counts as
     * held by an owner that can never be proven dead, so it is taken over like any silent holder —
     * after its heartbeat stays unchanged for one TTL — instead of failing every grant of the key.
     * A row whose key cannot be parsed raises a clear StoreException (it is no key's lease).
     */
    private Optional<LeaseRecord> map(ResultSet rs) throws SQLException {
        String keyText = rs.getString(1);
        String ownerText = rs.getString(2);
        LeaseKey key;
        try {
            key = LeaseKey.parse(keyText);
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable lease row '" + keyText + "' in " + db.description() + ": "
                    + e.getMessage());
        }
        Optional<OwnerId> owner = Optional.empty();
        if (ownerText != null) {
            try {
                owner = Optional.of(OwnerId.parse(ownerText));
            } catch (IllegalArgumentException e) {
                owner = Optional.empty();   // unreadable: ownerText still says the key is held
            }
        }
        return Optional.of(new LeaseRecord(key, owner, rs.getLong(3), rs.getLong(4),
                Duration.ofMillis(rs.getLong(5)), Instant.ofEpochMilli(rs.getLong(7)),
                Instant.ofEpochMilli(rs.getLong(8)), ownerText));
    }
}
