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
import java.util.function.BiFunction;
import org.leasesync.lease.Fence;
import org.leasesync.lease.JointGrantStore;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.StoreException;

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
 *   <li>If no row was updated (and there is no takeover candidate): {@code INSERT ... SELECT ...
 *       WHERE NOT EXISTS} with epoch 1, which inserts nothing (and raises nothing) when the key
 *       has a row; a unique-key violation means another owner inserted at the same moment
 *       (contention). The insert runs {@linkplain SqlDialect#recoverably recoverably}, so on
 *       PostgreSQL the violation does not abort the transaction (25P02) and the answer is "not
 *       granted", not an error.</li>
 * </ol>
 * The registry's fast path for a key that was granted before and is free now is
 * {@link #grantIfFree}: the same conditional {@code UPDATE} (free branch only) as one auto-commit
 * statement. Every grant asks for the new epoch and heartbeat as JDBC generated keys of its
 * {@code UPDATE} (PostgreSQL's driver adds {@code RETURNING}; H2 returns the updated row's final
 * values), so no grant reads the row back; the rest of the returned row is what the statement
 * wrote. (H2 caches a {@code SELECT ... FROM FINAL TABLE (UPDATE ...)} in the session and then
 * pays for invalidating its cached result on every later write of that session; the generated
 * keys of a plain {@code UPDATE} cost nothing of the kind: docs/benchmarks.md, lease acquire + release.)
 * Renew, release and raising the epoch are {@code UPDATE ... WHERE task_key = ? AND owner_id = ? AND epoch = ?}; zero
 * rows means the fence is no longer current.
 *
 * <p>A grant that loses a race inside the database — a unique-key violation, a lock timeout, a
 * deadlock or a serialization failure ({@link SqlDialect#isDuplicateKey},
 * {@link SqlDialect#isContention}) — answers empty (contention); any other failure is a
 * {@link StoreException}.
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcLeaseStore implements LeaseStore, JointGrantStore {

    private static final String COLUMNS = "task_key, owner_id, epoch, heartbeat, ttl_ms, renewed_at_ms";

    /**
     * The grant's conditional update up to its free branch; parameters 1–4 bound by {@link #bindGrant}.
     * Five values per grant: the row has no column that only repeats another (the
     * expiry is {@code renewed_at_ms + ttl_ms}, computed when a row is read).
     */
    private static final String GRANT_IF_FREE = "UPDATE lease SET owner_id = ?, epoch = epoch + 1,"
            + " heartbeat = heartbeat + 1, ttl_ms = ?, renewed_at_ms = ?"
            + " WHERE task_key = ? AND (owner_id IS NULL";

    /** {@link #grantIfNew}'s statement: a first row with epoch 1 and heartbeat 1, only where none exists. */
    private static final String INSERT_IF_NEW = "INSERT INTO lease (" + COLUMNS + ") SELECT CAST(? AS VARCHAR(300)),"
            + " CAST(? AS VARCHAR(400)), 1, 1, CAST(? AS BIGINT), CAST(? AS BIGINT)"
            + " WHERE NOT EXISTS (SELECT 1 FROM lease WHERE task_key = ?)";
    /** {@link #grantIfFree}'s statement: the conditional update, free branch only. */
    private static final String GRANT_FREE_ONLY = GRANT_IF_FREE + ")";
    /** What a grant asks the database to return of the updated row (JDBC generated keys). */
    private static final String[] GRANTED_COLUMNS = {"epoch", "heartbeat"};

    private final SqlDatabase db;
    /** A view bound to an open joint transaction, whose isolation its start set. */
    private final boolean bound;
    /** The last owner written and its text: a registry passes the same {@link OwnerId} on every call. */
    private volatile WrittenOwner lastOwner;

    private record WrittenOwner(OwnerId owner, String text) {}

    /** @param db the database holding the lease table (the client's {@link Database}, or a server's) */
    public JdbcLeaseStore(SqlDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
        this.bound = db instanceof BoundConnection;
    }

    /** {@code owner.asString()}, without building the text again for the owner of the previous call. */
    private String text(OwnerId owner) {
        WrittenOwner last = lastOwner;
        if (last == null || last.owner() != owner) {
            last = new WrittenOwner(owner, owner.asString());
            lastOwner = last;
        }
        return last.text();
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
    public Optional<LeaseRecord> tryGrant(
            LeaseKey key, OwnerId owner, Duration ttl, Instant now, Optional<LeaseRecord> takeOver) {
        return emptyOnContention(() -> db.transaction("grant the lease for " + key, c -> {
            if (!bound) db.dialect().isolateGrant(c);
            Optional<LeaseRecord> updated = conditionalUpdate(c, key, owner, ttl, now, takeOver);
            if (updated.isPresent() || takeOver.isPresent()) {
                return updated;
            }
            // No free row: the key was never granted (insert), or another owner holds it (the
            // insert meets the primary key: not granted)
            long nowMs = now.toEpochMilli();
            return insert(c, key, owner, ttl, nowMs)
                    ? Optional.of(written(key, owner, 1, 1, ttl, nowMs))
                    : Optional.<LeaseRecord>empty();
        }));
    }

    /**
     * {@inheritDoc}
     *
     * <p>The statement returns only what the database decided, the new epoch and heartbeat; the rest
     * of the row is what the statement itself wrote (this key, this owner, {@code ttl}, {@code now}).
     */
    @Override
    public Optional<LeaseRecord> grantIfFree(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        try { // the hot path: no wrapping lambda (emptyOnContention) around the statement
            return db.query(() -> "grant the lease for " + key, c -> {
                if (!bound) db.dialect().isolateGrant(c);
                try (PreparedStatement ps = c.prepareStatement(GRANT_FREE_ONLY, GRANTED_COLUMNS)) {
                    long nowMs = bindGrant(ps, key, owner, ttl, now);
                    if (db.dialect().executeUpdateRecoverably(c, ps) != 1) {
                        return Optional.<LeaseRecord>empty();
                    }
                    return granted(ps, key, owner, ttl, nowMs);
                }
            });
        } catch (StoreException | BoundConnection.Escape e) {
            return notGrantedOnContention(e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>One auto-commit {@code INSERT ... SELECT ... WHERE NOT EXISTS}: a key that has a row inserts
     * nothing (no error, so PostgreSQL logs none); two owners inserting at once meet the primary key,
     * and the loser gets "not granted".
     */
    @Override
    public Optional<LeaseRecord> grantIfNew(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        long nowMs = now.toEpochMilli();
        return emptyOnContention(() -> db.query("grant the lease for " + key, c -> {
            if (!bound) db.dialect().isolateGrant(c);
            return insert(c, key, owner, ttl, nowMs)
                    ? Optional.of(written(key, owner, 1, 1, ttl, nowMs))
                    : Optional.<LeaseRecord>empty();
        }));
    }

    /**
     * A grant that lost to another owner in the database (duplicate key, lock timeout, deadlock,
     * serialization) is "not granted" — also inside a joint transaction ({@link #inTransactionWith}),
     * where the failure arrives as the bound connection's {@link BoundConnection.Escape}. Every grant
     * statement runs {@linkplain SqlDialect#recoverably recoverably}, so on PostgreSQL a lock timeout
     * inside a joint transaction does not abort it: the registry's next read of the row still works
     * and the answer is "held", not an error (in auto-commit mode and on H2 this costs nothing).
     */
    private Optional<LeaseRecord> emptyOnContention(java.util.function.Supplier<Optional<LeaseRecord>> grant) {
        try {
            return grant.get();
        } catch (StoreException | BoundConnection.Escape e) {
            return notGrantedOnContention(e);
        }
    }

    /** {@link #emptyOnContention}'s decision: empty when {@code e} is a lost race, else {@code e} rethrown. */
    private Optional<LeaseRecord> notGrantedOnContention(RuntimeException e) {
        if (e.getCause() instanceof SQLException sql
                && (db.dialect().isContention(sql) || db.dialect().isDuplicateKey(sql))) {
            return Optional.empty();
        }
        throw e;
    }

    /** {@inheritDoc} True when {@code partner} is a {@link JdbcRunStore} over this store's database object. */
    @Override
    public boolean canJoin(Object partner) {
        return partner instanceof JdbcRunStore jdbc && jdbc.writesTo(db);
    }

    /**
     * {@inheritDoc}
     *
     * <p>One {@link SqlDatabase#transaction} on this store's database; the two views are a
     * {@code JdbcLeaseStore} and a {@link JdbcRunStore} over a {@link BoundConnection} of its
     * connection (the same mechanism as {@link JdbcRunStore#inOneTransaction}). A grant made through
     * the lease view is the same conditional statement as {@link #grantIfFree} / {@link #grantIfNew}
     * / {@link #tryGrant}, uncommitted: its row lock makes a concurrent grant of the key wait for
     * this transaction's end and then find the key held (or, after a rollback, as it was).
     */
    @Override
    @SuppressWarnings("unchecked") // the bound view is a JdbcRunStore, the partner's own class, so it is a P
    public <P, T> T inTransactionWith(P partner, String what, BiFunction<LeaseStore, P, T> work) {
        if (!canJoin(partner)) {
            throw new UnsupportedOperationException("the run store " + partner + " does not write to "
                    + db.description() + ": a grant cannot share its transaction");
        }
        JdbcRunStore jdbcRuns = (JdbcRunStore) partner;
        return db.transaction(what, c -> {
            db.dialect().isolateGrant(c); // before the first statement
            return BoundConnection.unwrap(
                    bound -> {
                        SqlDatabase one = new BoundConnection(db, bound);
                        return work.apply(new JdbcLeaseStore(one), (P) jdbcRuns.boundTo(one));
                    },
                    c);
        });
    }

    /** Binds parameters 1–4 of {@link #GRANT_IF_FREE}; returns {@code now} in epoch millis as written. */
    private long bindGrant(PreparedStatement ps, LeaseKey key, OwnerId owner, Duration ttl, Instant now)
            throws SQLException {
        long nowMs = now.toEpochMilli();
        ps.setString(1, text(owner));
        ps.setLong(2, ttl.toMillis());
        ps.setLong(3, nowMs);
        ps.setString(4, key.asString());
        return nowMs;
    }

    private Optional<LeaseRecord> conditionalUpdate(
            Connection c, LeaseKey key, OwnerId owner, Duration ttl, Instant now, Optional<LeaseRecord> takeOver)
            throws SQLException {
        String sql =
                GRANT_IF_FREE + (takeOver.isPresent() ? " OR (owner_id = ? AND epoch = ? AND heartbeat = ?))" : ")");
        try (PreparedStatement ps = c.prepareStatement(sql, GRANTED_COLUMNS)) {
            long nowMs = bindGrant(ps, key, owner, ttl, now);
            if (takeOver.isPresent()) {
                LeaseRecord seen = takeOver.get();
                ps.setString(5, seen.ownerText() == null ? "" : seen.ownerText()); // as stored, also when unreadable
                ps.setLong(6, seen.epoch());
                ps.setLong(7, seen.heartbeat());
            }
            return db.dialect().executeUpdateRecoverably(c, ps) == 1
                    ? granted(ps, key, owner, ttl, nowMs)
                    : Optional.empty();
        }
    }

    /**
     * The row a grant wrote: the new epoch and heartbeat as the database returned them for the
     * updated row (JDBC generated keys: {@code UPDATE ... RETURNING} on PostgreSQL, the updated row's
     * final values on H2), everything else as the statement wrote it.
     */
    private Optional<LeaseRecord> granted(PreparedStatement ps, LeaseKey key, OwnerId owner, Duration ttl, long nowMs)
            throws SQLException {
        try (ResultSet rs = ps.getGeneratedKeys()) {
            if (!rs.next()) {
                throw new SQLException("the database returned no epoch for the updated lease row of " + key);
            }
            return Optional.of(written(key, owner, rs.getLong(1), rs.getLong(2), ttl, nowMs));
        }
    }

    /** The row as a grant wrote it; the owner's text is the one written (not built again). */
    private LeaseRecord written(LeaseKey key, OwnerId owner, long epoch, long heartbeat, Duration ttl, long nowMs) {
        return new LeaseRecord(
                key,
                Optional.of(owner),
                epoch,
                heartbeat,
                ttl,
                Instant.ofEpochMilli(nowMs),
                Instant.ofEpochMilli(nowMs + ttl.toMillis()),
                text(owner));
    }

    /**
     * The conditional insert of a first row ({@link #INSERT_IF_NEW}): inserts nothing, without an
     * error, when the key has a row; a duplicate key (another owner inserted at the same moment) is
     * "not inserted" too, and runs {@linkplain SqlDialect#recoverably recoverably} so that on
     * PostgreSQL it does not abort a surrounding transaction.
     *
     * @return true if this call inserted the row
     */
    private boolean insert(Connection c, LeaseKey key, OwnerId owner, Duration ttl, long nowMs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT_IF_NEW)) {
            String keyText = key.asString();
            ps.setString(1, keyText);
            ps.setString(2, text(owner));
            ps.setLong(3, ttl.toMillis());
            ps.setLong(4, nowMs);
            ps.setString(5, keyText);
            return db.dialect().executeUpdateRecoverably(c, ps) == 1;
        } catch (SQLException e) {
            if (db.dialect().isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public boolean renew(Fence fence, Duration ttl, Instant now) {
        long nowMs = now.toEpochMilli();
        return db.query(() -> "renew the lease for " + fence.key(), c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE lease SET heartbeat = heartbeat + 1, ttl_ms = ?, renewed_at_ms = ?"
                            + " WHERE task_key = ? AND owner_id = ? AND epoch = ?")) {
                ps.setLong(1, ttl.toMillis());
                ps.setLong(2, nowMs);
                bindFence(ps, 3, fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean release(Fence fence, Instant now) {
        long nowMs = now.toEpochMilli();
        return db.query(() -> "release the lease for " + fence.key(), c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE lease SET owner_id = NULL, heartbeat = heartbeat + 1, renewed_at_ms = ?"
                            + " WHERE task_key = ? AND owner_id = ? AND epoch = ?")) {
                ps.setLong(1, nowMs);
                bindFence(ps, 2, fence);
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
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE lease SET epoch = ?, heartbeat = heartbeat + 1, renewed_at_ms = ?"
                            + " WHERE task_key = ? AND owner_id = ? AND epoch = ?")) {
                ps.setLong(1, newEpoch);
                ps.setLong(2, nowMs);
                bindFence(ps, 3, fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Optional<LeaseRecord> read(LeaseKey key) {
        return db.query(() -> "read the lease for " + key, c -> readRow(c, key));
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

    private void bindFence(PreparedStatement ps, int from, Fence fence) throws SQLException {
        ps.setString(from, fence.key().asString());
        ps.setString(from + 1, text(fence.owner()));
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
            throw new StoreException(
                    "unreadable lease row '" + keyText + "' in " + db.description() + ": " + e.getMessage());
        }
        Optional<OwnerId> owner = Optional.empty();
        if (ownerText != null) {
            try {
                owner = Optional.of(OwnerId.parse(ownerText));
            } catch (IllegalArgumentException e) {
                owner = Optional.empty(); // unreadable: ownerText still says the key is held
            }
        }
        Duration ttl = Duration.ofMillis(rs.getLong(5));
        long renewedMs = rs.getLong(6);
        // The expiry is not stored (V10): renewedAt + ttl for a held key, the release time for a free one
        long expiresMs = ownerText == null ? renewedMs : renewedMs + ttl.toMillis();
        return Optional.of(new LeaseRecord(
                key,
                owner,
                rs.getLong(3),
                rs.getLong(4),
                ttl,
                Instant.ofEpochMilli(renewedMs),
                Instant.ofEpochMilli(expiresMs),
                ownerText));
    }
}
