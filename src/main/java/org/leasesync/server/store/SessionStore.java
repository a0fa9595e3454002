package org.leasesync.server.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Sessions (table {@code user_sessions}): one per signed-in device. A session's token is 32 bytes
 * from {@link SecureRandom}, base64url without padding (43 characters), never starting with
 * {@code -} (a command line would take such a token for an option); only its SHA-256 is stored. A token is looked up by its hash and the stored hash is compared again in constant time.
 * A session is live while its account exists and is not disabled and it was used within the idle
 * time; using it moves its last use forward, at most once a minute ({@link #TOUCH_EVERY}), so a
 * busy device costs one write a minute, not one per request.
 *
 * <p>Nothing is cached: every authentication reads the database, so a revocation, a disabled or a
 * deleted account takes effect on every instance at its next request.
 *
 * <p>Thread-safe; every method blocks on the database. Times are the injected clock's.
 */
public final class SessionStore {

    /** A session's last use is written at most this often. */
    static final Duration TOUCH_EVERY = Duration.ofMinutes(1);
    /** Expired sessions deleted per {@link #create}, at most. */
    private static final int PURGE_BATCH = 100;

    /**
     * A session, never with its token or hash.
     *
     * @param createdAtMs epoch milliseconds of the server clock, as {@code lastUsedAtMs}
     * @param expiresAtMs when it ends if it is not used again: last use + idle time
     */
    public record Session(
            String id,
            String user,
            boolean admin,
            String device,
            long createdAtMs,
            long lastUsedAtMs,
            long expiresAtMs) {}

    /** A session just made, with its token: the only time the token exists outside the client. */
    public record NewSession(String token, Session session) {
        @Override
        public String toString() {
            return "NewSession[token=***, session=" + session + "]";
        }
    }

    private final ServerDatabase db;
    private final Clock clock;
    private final Duration idle;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param idle how long an unused session lives; positive
     * @throws IllegalArgumentException if {@code idle} is not positive
     */
    public SessionStore(ServerDatabase db, Clock clock, Duration idle) {
        this.db = Objects.requireNonNull(db, "db");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("the session idle time must be positive but was " + idle);
        }
        this.idle = idle;
    }

    /** The idle time after which an unused session ends. */
    public Duration idle() {
        return idle;
    }

    /**
     * Makes a session for {@code user}, which must exist. Also deletes up to 100 sessions whose
     * idle time is over (they are refused anyway; this keeps the table from growing).
     *
     * @param device a name the user recognises, 1..100 characters
     * @throws SQLException if the database fails, or the user does not exist (a foreign key violation)
     */
    public NewSession create(String user, String device) throws SQLException {
        String token = newToken();
        byte[] idBytes = new byte[16];
        random.nextBytes(idBytes);
        String id = HexFormat.of().formatHex(idBytes);
        long now = clock.millis();
        try (Connection c = db.connection()) {
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO user_sessions (session_id, user_id, token_sha256,"
                            + " device, created_at_ms, last_used_at_ms) VALUES (?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, user);
                ps.setString(3, sha256Hex(token));
                ps.setString(4, device);
                ps.setLong(5, now);
                ps.setLong(6, now);
                ps.executeUpdate();
            }
            purgeExpired(c, now);
            boolean admin;
            try (PreparedStatement ps = c.prepareStatement("SELECT is_admin FROM sync_users WHERE user_id = ?")) {
                ps.setString(1, user);
                try (ResultSet rs = ps.executeQuery()) {
                    admin = rs.next() && rs.getBoolean(1);
                }
            }
            return new NewSession(token, new Session(id, user, admin, device, now, now, now + idle.toMillis()));
        }
    }

    /**
     * The live session {@code token} belongs to, or empty: unknown, idle too long, revoked, its
     * account disabled or deleted. Moves the session's last use to now when it is older than
     * {@link #TOUCH_EVERY}.
     */
    public Optional<Session> authenticate(String token) throws SQLException {
        if (token == null || token.isEmpty() || token.length() > 512) {
            return Optional.empty();
        }
        String hash = sha256Hex(token);
        long now = clock.millis();
        try (Connection c = db.connection()) {
            Session s;
            String stored;
            try (PreparedStatement ps = c.prepareStatement("SELECT s.session_id, s.user_id, u.is_admin, s.device,"
                    + " s.created_at_ms, s.last_used_at_ms, s.token_sha256, u.disabled FROM user_sessions s"
                    + " JOIN sync_users u ON u.user_id = s.user_id WHERE s.token_sha256 = ?")) {
                ps.setString(1, hash);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    s = session(rs);
                    stored = rs.getString(7);
                    if (rs.getBoolean(8)) {
                        return Optional.empty();
                    }
                }
            }
            if (!MessageDigest.isEqual(
                            stored.getBytes(StandardCharsets.US_ASCII), hash.getBytes(StandardCharsets.US_ASCII))
                    || s.expiresAtMs() <= now) {
                return Optional.empty();
            }
            if (now - s.lastUsedAtMs() >= TOUCH_EVERY.toMillis()) {
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE user_sessions SET last_used_at_ms = ? WHERE session_id = ? AND last_used_at_ms < ?")) {
                    ps.setLong(1, now);
                    ps.setString(2, s.id());
                    ps.setLong(3, now);
                    ps.executeUpdate();
                }
                s = new Session(s.id(), s.user(), s.admin(), s.device(), s.createdAtMs(), now, now + idle.toMillis());
            }
            return Optional.of(s);
        }
    }

    /** The live sessions of {@code user}, newest first. */
    public List<Session> list(String user) throws SQLException {
        long now = clock.millis();
        List<Session> all = new ArrayList<>();
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("SELECT s.session_id, s.user_id, u.is_admin, s.device,"
                        + " s.created_at_ms, s.last_used_at_ms FROM user_sessions s JOIN sync_users u ON u.user_id = s.user_id"
                        + " WHERE s.user_id = ? AND s.last_used_at_ms > ? AND NOT u.disabled"
                        + " ORDER BY s.created_at_ms DESC, s.session_id")) {
            ps.setString(1, user);
            ps.setLong(2, now - idle.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(session(rs));
                }
            }
        }
        return all;
    }

    /** Ends one session of {@code user}; false if it is not one of that user's. */
    public boolean revoke(String user, String sessionId) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps =
                        c.prepareStatement("DELETE FROM user_sessions WHERE user_id = ? AND session_id = ?")) {
            ps.setString(1, user);
            ps.setString(2, sessionId);
            return ps.executeUpdate() > 0;
        }
    }

    /** Ends every session of {@code user}; returns how many there were. */
    public int revokeAll(String user) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM user_sessions WHERE user_id = ?")) {
            ps.setString(1, user);
            return ps.executeUpdate();
        }
    }

    /** Lower-case hex of the SHA-256 of the token's UTF-8 bytes, as the migration computes it in SQL. */
    public static String sha256Hex(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private void purgeExpired(Connection c, long now) throws SQLException {
        List<String> expired = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT session_id FROM user_sessions WHERE last_used_at_ms <= ? ORDER BY last_used_at_ms")) {
            ps.setLong(1, now - idle.toMillis());
            ps.setMaxRows(PURGE_BATCH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    expired.add(rs.getString(1));
                }
            }
        }
        if (expired.isEmpty()) {
            return;
        }
        try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM user_sessions WHERE session_id = ? AND last_used_at_ms <= ?")) {
            for (String id : expired) {
                ps.setString(1, id);
                ps.setLong(2, now - idle.toMillis());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private Session session(ResultSet rs) throws SQLException {
        long lastUsed = rs.getLong(6);
        return new Session(
                rs.getString(1),
                rs.getString(2),
                rs.getBoolean(3),
                rs.getString(4),
                rs.getLong(5),
                lastUsed,
                lastUsed + idle.toMillis());
    }

    /**
     * 32 random bytes, base64url. One in 64 encodings starts with {@code -}, which {@code --token -h…}
     * on a command line reads as an option; those are drawn again (it costs under 0.03 bits).
     */
    private String newToken() {
        byte[] bytes = new byte[32];
        while (true) {
            random.nextBytes(bytes);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            if (token.charAt(0) != '-') {
                return token;
            }
        }
    }
}
