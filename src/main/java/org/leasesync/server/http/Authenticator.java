package org.leasesync.server.http;

import java.sql.SQLException;
import java.util.Optional;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.store.TokenStore;

/**
 * Bearer-token authentication and path authorisation (docs/protocol.md §2). Thread-safe; blocks
 * on the database for user tokens.
 */
public final class Authenticator {

    private final TokenStore tokens;
    private final String adminToken;

    public Authenticator(TokenStore tokens, String adminToken) {
        this.tokens = tokens;
        this.adminToken = adminToken;
    }

    /**
     * Checks that the request's token belongs to {@code pathUser}.
     *
     * @throws ApiError 401 for a missing or unknown token, 403 for another user's or the admin token
     */
    void requireUser(String authorization, String pathUser) throws SQLException {
        String token = bearer(authorization);
        if (constantTimeEquals(token, adminToken)) {
            throw forbidden("the admin token is not valid on user paths");
        }
        Optional<String> user = tokens.userForToken(token);
        if (user.isEmpty()) {
            throw unauthorized("unknown bearer token");
        }
        if (!user.get().equals(pathUser)) {
            throw forbidden("this token does not grant access to user '" + pathUser + "'");
        }
    }

    /**
     * Checks that the request carries the admin token.
     *
     * @throws ApiError 401 for a missing or unknown token, 403 for a user token
     */
    void requireAdmin(String authorization) throws SQLException {
        String token = bearer(authorization);
        if (constantTimeEquals(token, adminToken)) {
            return;
        }
        if (tokens.userForToken(token).isPresent()) {
            throw forbidden("admin endpoints need the admin token");
        }
        throw unauthorized("unknown bearer token");
    }

    /**
     * The user a request's bearer token belongs to, for the audit log; empty for a missing or
     * malformed header, an unknown token and the admin token. Checks nothing and never throws
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
        return constantTimeEquals(token, adminToken) ? Optional.empty() : tokens.userForToken(token);
    }

    private static String bearer(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            throw unauthorized("missing Authorization: Bearer <token> header");
        }
        String a = authorization.trim();
        if (a.length() < 7 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw unauthorized("Authorization must use the Bearer scheme");
        }
        String token = a.substring(7).trim();
        if (token.isEmpty()) {
            throw unauthorized("empty bearer token");
        }
        return token;
    }

    private static boolean constantTimeEquals(String a, String b) {
        return java.security.MessageDigest.isEqual(
                a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static ApiError unauthorized(String message) {
        return ApiError.unauthorized(message);
    }

    private static ApiError forbidden(String message) {
        return ApiError.forbidden(message);
    }
}
