package org.leasesync.server.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import org.leasesync.server.http.ApiRouter;

/**
 * An HTTP error answer: status, machine code, human message and extra headers, rendered as
 * {@code {"code":..,"message":..}}. Thrown by handlers and turned into a response once, by
 * {@link ApiRouter}. Carries no stack trace.
 */
public final class ApiError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final String reason;
    private final Long highestToken;
    private final transient Map<String, String> headers;

    public ApiError(int status, String code, String message) {
        this(status, code, message, Map.of());
    }

    /**
     * {@code 429 rate_limited} with {@code Retry-After: retryAfter} as given: delta-seconds or an
     * HTTP-date (RFC 9110 §10.2.3).
     */
    public static ApiError rateLimited(String retryAfter, String message) {
        return new ApiError(429, "rate_limited", message, Map.of(ProtocolHeaders.RETRY_AFTER, retryAfter));
    }

    /** An error with {@code Retry-After: retryAfterSeconds}. */
    public ApiError(int status, String code, String message, long retryAfterSeconds) {
        this(status, code, message, Map.of(ProtocolHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds)));
    }

    private ApiError(int status, String code, String message, Map<String, String> headers) {
        this(status, code, null, message, headers);
    }

    private ApiError(int status, String code, String reason, String message, Map<String, String> headers) {
        this(status, code, reason, null, message, headers);
    }

    private ApiError(
            int status, String code, String reason, Long highestToken, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.highestToken = highestToken;
        this.status = status;
        this.code = code;
        this.reason = reason;
        this.headers = Map.copyOf(headers);
    }

    public static ApiError badRequest(String message) {
        return new ApiError(400, "bad_request", message);
    }

    /**
     * 400 {@code invalid_cursor}: a well-formed cursor (or push position) the client must give up,
     * and pull everything again (docs/protocol.md §4).
     *
     * @param reason why, for programs: {@link #OTHER_DATABASE}, {@link #WENT_BACK} or {@link #PURGED}
     */
    public static ApiError invalidCursor(String reason, String message) {
        return new ApiError(400, "invalid_cursor", reason, message, Map.of());
    }

    /** {@code invalid_cursor} reason: the cursor was issued by another server database. */
    public static final String OTHER_DATABASE = "other_database";
    /** {@code invalid_cursor} reason: the server's data went back to an earlier state (a restore). */
    public static final String WENT_BACK = "went_back";
    /** {@code invalid_cursor} reason: deletions after the cursor were purged. */
    public static final String PURGED = "purged";

    /**
     * 409 {@code stale_fencing_token} (docs/protocol.md §6), with {@code highestToken}: the highest
     * fencing token seen for the key and client, so a client whose lease table went back in time
     * can move its epoch just past it in one step.
     */
    public static ApiError staleFencingToken(String message, long highestToken) {
        return new ApiError(409, "stale_fencing_token", null, highestToken, message, Map.of());
    }

    public static ApiError notFound(String message) {
        return new ApiError(404, "not_found", message);
    }

    public static ApiError unauthorized(String message) {
        return new ApiError(401, "unauthorized", message, Map.of("WWW-Authenticate", "Bearer realm=\"leasesync\""));
    }

    /**
     * 401 {@code invalid_token}: the bearer token is not a live session (docs/protocol.md §2), with
     * {@code WWW-Authenticate: Bearer realm="leasesync", error="invalid_token"} (RFC 6750).
     */
    public static ApiError invalidToken(String message) {
        return new ApiError(
                401,
                "invalid_token",
                message,
                Map.of("WWW-Authenticate", "Bearer realm=\"leasesync\", error=\"invalid_token\""));
    }

    public static ApiError forbidden(String message) {
        return new ApiError(403, "forbidden", message);
    }

    public static ApiError methodNotAllowed(String method, String path, Iterable<String> allowed) {
        String allow = String.join(", ", allowed);
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Allow", allow);
        return new ApiError(
                405, "method_not_allowed", method + " is not allowed on " + path + "; allowed: " + allow, h);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** Extra response headers, e.g. {@code Retry-After}, {@code WWW-Authenticate}, {@code Allow}. */
    public Map<String, String> headers() {
        return headers;
    }

    /** The JSON error body. */
    public ErrorBody body() {
        return new ErrorBody(code, getMessage(), reason, highestToken);
    }

    /**
     * Error body shape; {@code reason} (only for {@code invalid_cursor}) and {@code highestToken}
     * (only for {@code stale_fencing_token}) are left out when null.
     */
    record ErrorBody(
            String code,
            String message,

            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
            String reason,

            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
            Long highestToken) {}
}
