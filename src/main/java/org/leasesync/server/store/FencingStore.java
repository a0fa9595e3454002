package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The highest fencing token seen per user + scope + client id (docs/protocol.md §6).
 *
 * <p>Must be called inside a push or fenced-pull transaction that holds the user+scope lock
 * ({@link RecordStore#lockScope}), which makes check-then-write atomic. Stateless, thread-safe.
 */
public final class FencingStore {

    /**
     * Records {@code token} as the highest seen, unless a higher one was seen before.
     *
     * @return true if accepted (equal or higher), false if stale (lower than the highest seen)
     */
    public boolean accept(Connection c, String user, String scope, String clientId, long token, long nowMs)
            throws SQLException {
        Long highest = null;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT highest_token FROM fencing_tokens WHERE user_id = ? AND scope = ? AND client_id = ?")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setString(3, clientId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    highest = rs.getLong(1);
                }
            }
        }
        if (highest != null && token < highest) {
            return false;
        }
        String sql = highest == null
                ? "INSERT INTO fencing_tokens (highest_token, updated_at_ms, user_id, scope, client_id)"
                        + " VALUES (?, ?, ?, ?, ?)"
                : "UPDATE fencing_tokens SET highest_token = ?, updated_at_ms = ?"
                        + " WHERE user_id = ? AND scope = ? AND client_id = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, token);
            ps.setLong(2, nowMs);
            ps.setString(3, user);
            ps.setString(4, scope);
            ps.setString(5, clientId);
            ps.executeUpdate();
        }
        return true;
    }

    /**
     * The highest fencing token seen for user + scope + client, or -1 if none was. Same transaction
     * rules as {@link #accept}.
     */
    public long highest(Connection c, String user, String scope, String clientId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT highest_token FROM fencing_tokens WHERE user_id = ? AND scope = ? AND client_id = ?")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setString(3, clientId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }
}
