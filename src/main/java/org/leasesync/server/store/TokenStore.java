package org.leasesync.server.store;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;
import org.leasesync.server.protocol.Scopes;

/**
 * Users and their bearer tokens, and the admin token, in the server database (so a file-backed
 * server keeps them across restarts). Tokens are 32 random bytes from {@link SecureRandom},
 * base64url without padding (43 characters).
 *
 * <p>Thread-safe; user creation is serialised within the process and safe across instances that
 * share a database (a duplicate key means another instance was first). Every method blocks on
 * the database.
 */
public final class TokenStore {

    public static final Pattern USER_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final String ADMIN_SETTING = "admin_token";

    private final ServerDatabase db;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public TokenStore(ServerDatabase db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    /**
     * The admin token, created on first use. Instances sharing a database agree on it: the first
     * insert wins, the others read it.
     */
    public synchronized String adminToken() throws SQLException {
        try (Connection c = db.connection()) {
            Optional<String> existing = adminToken(c);
            if (existing.isPresent()) {
                return existing.get();
            }
            String token = newToken();
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO server_settings (setting_name, setting_value) VALUES (?, ?)")) {
                ps.setString(1, ADMIN_SETTING);
                ps.setString(2, token);
                ps.executeUpdate();
                return token;
            } catch (SQLException e) {
                if (!DatabaseErrors.isUniqueViolation(e)) {
                    throw e;
                }
                return adminToken(c).orElseThrow(() -> e);
            }
        }
    }

    private static Optional<String> adminToken(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT setting_value FROM server_settings WHERE setting_name = ?")) {
            ps.setString(1, ADMIN_SETTING);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /**
     * The user's token, creating the user (with a new token and empty scopes) if needed. When
     * another instance creates the same user at the same moment, both return its one token.
     */
    public synchronized String tokenFor(String user) throws SQLException {
        requireUserId(user);
        try (Connection c = db.connection()) {
            Optional<String> existing = token(c, user);
            if (existing.isPresent()) {
                return existing.get();
            }
            c.setAutoCommit(false);
            try {
                String token = createUser(c, user);
                c.commit();
                return token;
            } catch (SQLException e) {
                DatabaseErrors.rollbackAfter(c, e);
                if (!DatabaseErrors.isUniqueViolation(e)) {
                    throw e;
                }
                c.setAutoCommit(true);
                return token(c, user).orElseThrow(() -> e);
            } catch (RuntimeException e) {
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
        }
    }

    /** The user owning {@code token}, or empty if no user has it. */
    public Optional<String> userForToken(String token) throws SQLException {
        try (Connection c = db.connection();
             PreparedStatement ps = c.prepareStatement("SELECT user_id FROM sync_users WHERE token = ?")) {
            ps.setString(1, token);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /** True if the user exists, read through {@code c}. */
    public static boolean exists(Connection c, String user) throws SQLException {
        return token(c, user).isPresent();
    }

    /**
     * Inserts a user with a new token and a scope_state row per scope, in the caller's
     * transaction. Returns the token.
     */
    public String createUser(Connection c, String user) throws SQLException {
        requireUserId(user);
        String token = newToken();
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO sync_users (user_id, token, created_at_ms) VALUES (?, ?, ?)")) {
            ps.setString(1, user);
            ps.setString(2, token);
            ps.setLong(3, clock.millis());
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO scope_state (user_id, scope, last_seq) VALUES (?, ?, 0)")) {
            for (String scope : Scopes.ALL) {
                ps.setString(1, user);
                ps.setString(2, scope);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        return token;
    }

    private static Optional<String> token(Connection c, String user) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT token FROM sync_users WHERE user_id = ?")) {
            ps.setString(1, user);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    private static void requireUserId(String user) {
        if (user == null || !USER_ID.matcher(user).matches()) {
            throw new IllegalArgumentException("user id must match " + USER_ID + " but was '" + user + "'");
        }
    }

    private String newToken() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
