package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * The position the server answered to a key's latest applied push (table {@code push_position};
 * protocol {@code position}), which pulls send back ({@code pushed}) so that a server restored to
 * before that push refuses them. Replaced by every applied push, dropped by a full download.
 * Stateless and thread-safe; every method runs in the caller's connection.
 */
final class PushPositions {

    private PushPositions() {}

    /** The key's push position, if any. */
    static Optional<String> read(Connection c, TaskKey key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT position FROM push_position WHERE user_id = ? AND scope = ?")) {
            JdbcLocalData.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /** Makes {@code position} the key's push position, in the confirming transaction. */
    static void save(Connection c, TaskKey key, String position, Instant now) throws SQLException {
        try (PreparedStatement up = c.prepareStatement(
                "UPDATE push_position SET position = ?, updated_at_ms = ? WHERE user_id = ? AND scope = ?")) {
            up.setString(1, position);
            up.setLong(2, now.toEpochMilli());
            JdbcLocalData.bindKey(up, 3, key);
            if (up.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement ins = c.prepareStatement(
                "INSERT INTO push_position (user_id, scope, position, updated_at_ms) VALUES (?, ?, ?, ?)")) {
            JdbcLocalData.bindKey(ins, 1, key);
            ins.setString(3, position);
            ins.setLong(4, now.toEpochMilli());
            ins.executeUpdate();
        }
    }
}
