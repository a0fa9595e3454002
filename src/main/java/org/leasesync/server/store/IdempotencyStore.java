package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Completed pushes by user + idempotency key, kept for the key retention period counted from
 * completion (docs/protocol.md §5.3). A record older than that is treated as absent; the job
 * {@code expire-idempotency-keys} deletes it later ({@code server.jobs.ExpireIdempotencyKeysJob}).
 *
 * <p>Thread-safe (stateless besides the retention). Blocks on the database.
 */
public final class IdempotencyStore {

    /** A completed push: its fingerprint and the response to replay. */
    public record StoredPush(
            String key, String scope, String requestHash, int statusCode, String responseBody, long completedAtMs) {}

    private final ServerDatabase db;
    private final long retentionMs;

    public IdempotencyStore(ServerDatabase db, Duration retention) {
        this.db = db;
        this.retentionMs = retention.toMillis();
    }

    public long retentionMs() {
        return retentionMs;
    }

    /** The live (not expired at {@code nowMs}) record of the user's key, if any. */
    public Optional<StoredPush> find(String user, String key, long nowMs) throws SQLException {
        try (Connection c = db.connection()) {
            return find(c, user, key, nowMs);
        }
    }

    /** {@link #find(String, String, long)} in the caller's transaction. */
    public Optional<StoredPush> find(Connection c, String user, String key, long nowMs) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT scope, request_hash, status_code, response_body, completed_at_ms"
                        + " FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND completed_at_ms > ?")) {
            ps.setString(1, user);
            ps.setString(2, key);
            ps.setLong(3, nowMs - retentionMs);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new StoredPush(
                                key, rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), rs.getLong(5)))
                        : Optional.empty();
            }
        }
    }

    /**
     * Stores a completed push in the caller's transaction, replacing an expired record of the same
     * key. The caller must hold the key's claim and have checked, in this transaction, that no live
     * record exists.
     */
    public void store(Connection c, String user, StoredPush p) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM idempotency_keys WHERE user_id = ? AND idem_key = ?")) {
            ps.setString(1, user);
            ps.setString(2, p.key());
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO idempotency_keys (user_id, idem_key, scope, request_hash, status_code,"
                        + " response_body, completed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, user);
            ps.setString(2, p.key());
            ps.setString(3, p.scope());
            ps.setString(4, p.requestHash());
            ps.setInt(5, p.statusCode());
            ps.setString(6, p.responseBody());
            ps.setLong(7, p.completedAtMs());
            ps.executeUpdate();
        }
    }
}
