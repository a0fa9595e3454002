package org.leasesync.server.http;

import java.sql.SQLException;
import java.util.Optional;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.store.SessionStore;
import org.leasesync.server.store.SessionStore.Session;

/**
 * Bearer-token authentication against the live sessions, and path authorisation
 * (docs/protocol.md §2): every check reads the database ({@link SessionStore}), so a revoked
 * session or a disabled or deleted account is refused at its next request on every instance.
 * Thread-safe; blocks on the database.
 */
public final class Authenticator {

    private final SessionStore sessions;

    public Authenticator(SessionStore sessions) {
        this.sessions = sessions;
    }

    /**
     * The live session the request's token belongs to.
     *
     * @throws ApiError 401 {@code unauthorized} for a missing header or another scheme, 401
     *     {@code invalid_token} for a token that is not a live session
     */
    Session requireSession(String authorization) throws SQLException {
        String token = bearer(authorization);
        return sessions.authenticate(token)
                .orElseThrow(() -> ApiError.invalidToken(
                        "the bearer token is not a live session (unknown, expired, revoked, or its account disabled or deleted);"
                                + " sign in again"));
    }

    /**
     * The live session of {@code pathUser}.
     *
     * @throws ApiError 401 as {@link #requireSession}; 403 for another user's session
     */
    Session requireUser(String authorization, String pathUser) throws SQLException {
        Session s = requireSession(authorization);
        if (!s.user().equals(pathUser)) {
            throw ApiError.forbidden("this session does not grant access to user '" + pathUser + "'");
        }
        return s;
    }

    /**
     * The live session of an admin account.
     *
     * @throws ApiError 401 as {@link #requireSession}; 403 for a session of an account without the admin flag
     */
    Session requireAdmin(String authorization) throws SQLException {
        Session s = requireSession(authorization);
        if (!s.admin()) {
            throw ApiError.forbidden("admin endpoints need the session of an admin account");
        }
        return s;
    }

    /**
     * The user a request's bearer token belongs to, for the audit log; empty for a missing or
     * malformed header or a token that is not a live session. Checks nothing and never throws
     * {@link ApiError}.
     *
     * @throws SQLException if the token cannot be looked up
     */
    Optional<String> tokenOwner(String authorization) throws SQLException {
        String token;
        try {
            token = bearer(authorization);
        } catch (ApiError e) {
            return Optional.empty();
        }
        return sessions.authenticate(token).map(Session::user);
    }

    private static String bearer(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            throw ApiError.unauthorized("missing Authorization: Bearer <token> header");
        }
        String a = authorization.trim();
        if (a.length() < 7 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ApiError.unauthorized("Authorization must use the Bearer scheme");
        }
        String token = a.substring(7).trim();
        if (token.isEmpty()) {
            throw ApiError.unauthorized("empty bearer token");
        }
        return token;
    }
}
