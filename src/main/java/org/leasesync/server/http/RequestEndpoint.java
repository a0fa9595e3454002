package org.leasesync.server.http;

import java.util.List;
import java.util.Locale;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.PathSegments;
import org.leasesync.server.store.AuditEntry;
import org.leasesync.server.store.AuditLog;

/**
 * The bounded set of endpoints a request is counted under in the request metrics (tag
 * {@code endpoint}): never the raw path, whose user ids and idempotency keys would make the number
 * of series grow without bound. Immutable.
 */
enum RequestEndpoint {
    /** {@code GET /v1/users/{user}/scopes/{scope}/changes}. */
    PULL,
    /** {@code POST /v1/users/{user}/scopes/{scope}/changes}. */
    PUSH,
    /** {@code GET /v1/users/{user}/scopes/{scope}/pushes/{key}}. */
    PUSH_STATUS,
    /** {@code /v1/sessions} and {@code /v1/sessions/{id}}: sign-in, the caller's sessions, sign-out. */
    SESSIONS,
    /** Anything under {@code /v1/admin/}. */
    ADMIN,
    /** {@code /health}. */
    HEALTH,
    /** {@code /metrics}. */
    METRICS,
    /** Everything else: unknown paths, other methods on known paths, malformed paths. */
    OTHER;

    private final String tag = name().toLowerCase(Locale.ROOT);

    /** The tag value, e.g. {@code push_status}. */
    String tag() {
        return tag;
    }

    /** The endpoint of a request; never throws (a path that cannot be decoded is {@link #OTHER}). */
    static RequestEndpoint of(String method, String rawPath) {
        if ("/health".equals(rawPath)) {
            return HEALTH;
        }
        if ("/metrics".equals(rawPath)) {
            return METRICS;
        }
        List<String> s;
        try {
            s = PathSegments.of(rawPath);
        } catch (ApiError e) {
            return OTHER;
        }
        if ((s.size() == 2 || s.size() == 3)
                && s.get(0).equals("v1")
                && s.get(1).equals("sessions")) {
            return SESSIONS;
        }
        if (s.size() == 3 && s.get(0).equals("v1") && s.get(1).equals("admin")) {
            return ADMIN;
        }
        String op = AuditLog.op(method, s);
        if (op == null) {
            return OTHER;
        }
        return switch (op) {
            case AuditEntry.PULL -> PULL;
            case AuditEntry.PUSH -> PUSH;
            case AuditEntry.PUSH_STATUS -> PUSH_STATUS;
            default -> OTHER;
        };
    }
}
