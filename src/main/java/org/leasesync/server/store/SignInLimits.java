package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The limits on failed sign-ins (docs/protocol.md §12), counted in the database (table
 * {@code sign_in_failures}) so that every instance sharing it refuses alike: at most
 * {@link #PER_USER} failures for one user name and {@link #PER_ADDRESS} from one client address
 * within {@link #WINDOW}.
 *
 * <p>An attempt is written <em>before</em> its password is checked ({@link #begin}) and counted
 * against the attempts written before it, so concurrent guesses on several instances see each
 * other instead of all slipping under the limit. A refused attempt and a successful one are
 * deleted again ({@link Attempt#refused()}, {@link #succeeded}); a wrong password's row stays, and
 * is the failure. Rows older than the window are deleted on the way.
 *
 * <p>Thread-safe; every method blocks on the database. Times are the injected clock's.
 */
public final class SignInLimits {

    /** Failed sign-ins of one user name within {@link #WINDOW} before sign-in is refused. */
    public static final int PER_USER = 10;
    /** Failed sign-ins from one client address within {@link #WINDOW} before sign-in is refused. */
    public static final int PER_ADDRESS = 100;
    /** The window failures are counted in. */
    public static final Duration WINDOW = Duration.ofMinutes(15);

    /**
     * An attempt that may go ahead ({@code retryAfterSeconds} 0) or is refused.
     *
     * @param id the attempt's row, to delete when it succeeds; 0 for a refused attempt
     * @param retryAfterSeconds for a refused attempt: when the oldest failure that keeps the limit
     *     reached leaves the window, rounded up, at least 1
     */
    public record Attempt(long id, long retryAfterSeconds) {
        public boolean refused() {
            return retryAfterSeconds > 0;
        }
    }

    private final ServerDatabase db;
    private final Clock clock;

    public SignInLimits(ServerDatabase db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    /**
     * Records an attempt for {@code userName} (empty for a name no account can have) from
     * {@code address}, and says whether it may go ahead. A refused attempt leaves no row.
     *
     * @param address the client's address as text, at most 64 characters (longer is cut)
     */
    public Attempt begin(Optional<String> userName, String address) throws SQLException {
        String addr = address.length() > 64 ? address.substring(0, 64) : address;
        long now = clock.millis();
        long since = now - WINDOW.toMillis();
        try (Connection c = db.connection()) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM sign_in_failures WHERE at_ms <= ?")) {
                ps.setLong(1, since);
                ps.executeUpdate();
            }
            long id;
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO sign_in_failures (user_name, client_address, at_ms) VALUES (?, ?, ?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, userName.orElse(null));
                ps.setString(2, addr);
                ps.setLong(3, now);
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    id = keys.getLong(1);
                }
            }
            long wait = 0;
            if (userName.isPresent()) {
                wait = waitFor(c, "user_name", userName.get(), since, id, PER_USER, now);
            }
            wait = Math.max(wait, waitFor(c, "client_address", addr, since, id, PER_ADDRESS, now));
            if (wait > 0) {
                delete(c, id);
                return new Attempt(0, wait);
            }
            return new Attempt(id, 0);
        }
    }

    /** The attempt signed in: it was no failure. */
    public void succeeded(Attempt attempt) throws SQLException {
        try (Connection c = db.connection()) {
            delete(c, attempt.id());
        }
    }

    /**
     * Seconds until the attempts before {@code id} in the window fall below {@code limit}, or 0
     * when they already are: the limit-th newest of them leaves the window then.
     */
    private static long waitFor(Connection c, String column, String value, long since, long id, int limit, long now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT at_ms FROM sign_in_failures WHERE " + column
                + " = ? AND at_ms > ? AND attempt_id < ? ORDER BY at_ms DESC, attempt_id DESC")) {
            ps.setString(1, value);
            ps.setLong(2, since);
            ps.setLong(3, id);
            ps.setMaxRows(limit);
            try (ResultSet rs = ps.executeQuery()) {
                int n = 0;
                long at = 0;
                while (rs.next()) {
                    n++;
                    at = rs.getLong(1);
                }
                if (n < limit) {
                    return 0;
                }
                long leavesAt = at + WINDOW.toMillis();
                return Math.max(1, (leavesAt - now + 999) / 1000);
            }
        }
    }

    private static void delete(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM sign_in_failures WHERE attempt_id = ?")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }
}
