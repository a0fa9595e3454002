package org.leasesync.sync;

import org.leasesync.lease.LeasesyncException;

/**
 * A call to the sync server failed. The {@link Kind} says what the client may conclude about a
 * push: only {@link Kind#NOT_SENT} proves the server never saw it; after {@link Kind#AMBIGUOUS} the
 * server may have applied it (OkHttp's {@code Call.execute()} contract), so the client must query
 * the idempotency key before sending anything again (invariant 7, query before retry: docs/architecture.md).
 */
public class RemoteException extends LeasesyncException {
    private static final long serialVersionUID = 1L;

    /** What is known about the request's effect. */
    public enum Kind {
        /** The connection could not be made: the request was not sent. */
        NOT_SENT,
        /** Timeout or dropped connection after sending, or an unreadable 2xx body: outcome unknown. */
        AMBIGUOUS,
        /** The server answered with an error status (see {@link #status()} and {@link #code()}). */
        HTTP
    }

    private final Kind kind;
    private final int status;
    private final String code;
    private final long retryAfterMillis;
    private final String userMessage;
    private final String serverMessage;
    private final String reason;
    private final long highestFencingToken;

    /**
     * @param userMessage short and plain, for the window and the CLI's one-line result
     * @param message the technical detail (operation, status, server message), for logs
     */
    public RemoteException(
            Kind kind,
            int status,
            String code,
            long retryAfterMillis,
            String userMessage,
            String message,
            Throwable cause) {
        this(kind, status, code, "", retryAfterMillis, userMessage, message, "", cause);
    }

    /**
     * @param userMessage short and plain, for the window and the CLI's one-line result
     * @param message the technical detail (operation, status, server message), for logs
     * @param serverMessage the {@code message} of the server's error body as sent, or empty
     */
    public RemoteException(
            Kind kind,
            int status,
            String code,
            long retryAfterMillis,
            String userMessage,
            String message,
            String serverMessage,
            Throwable cause) {
        this(kind, status, code, "", retryAfterMillis, userMessage, message, serverMessage, cause);
    }

    /**
     * @param reason the error body's {@code reason} (e.g. {@code went_back} for {@code invalid_cursor}),
     *     or empty
     */
    public RemoteException(
            Kind kind,
            int status,
            String code,
            String reason,
            long retryAfterMillis,
            String userMessage,
            String message,
            Throwable cause) {
        this(kind, status, code, reason, retryAfterMillis, userMessage, message, "", cause);
    }

    /**
     * @param reason the error body's {@code reason} (e.g. {@code went_back} for {@code invalid_cursor}),
     *     or empty
     * @param serverMessage the {@code message} of the server's error body as sent, or empty
     */
    public RemoteException(
            Kind kind,
            int status,
            String code,
            String reason,
            long retryAfterMillis,
            String userMessage,
            String message,
            String serverMessage,
            Throwable cause) {
        this(kind, status, code, reason, retryAfterMillis, userMessage, message, serverMessage, -1, cause);
    }

    /**
     * @param highestFencingToken for {@code 409 stale_fencing_token}: the error body's
     *     {@code highestToken}, the highest fencing token the server has seen from this client for the
     *     key (docs/protocol.md §6); -1 when the server did not say
     */
    public RemoteException(
            Kind kind,
            int status,
            String code,
            String reason,
            long retryAfterMillis,
            String userMessage,
            String message,
            String serverMessage,
            long highestFencingToken,
            Throwable cause) {
        super(message, cause);
        this.highestFencingToken = highestFencingToken < 0 ? -1 : highestFencingToken;
        this.kind = kind;
        this.status = status;
        this.code = code == null ? "" : code;
        this.reason = reason == null ? "" : reason;
        this.retryAfterMillis = retryAfterMillis;
        this.userMessage = userMessage;
        this.serverMessage = serverMessage == null ? "" : serverMessage;
    }

    /** The {@code message} of the server's error body (docs/protocol.md §3), or empty. */
    public String serverMessage() {
        return serverMessage;
    }

    /** A short, plain sentence for people, e.g. "the sync server is busy (HTTP 429)". */
    public String userMessage() {
        return userMessage;
    }

    public Kind kind() {
        return kind;
    }

    /** The HTTP status for {@link Kind#HTTP}, else 0. */
    public int status() {
        return status;
    }

    /** The machine code from the error body (e.g. {@code rate_limited}), or empty. */
    public String code() {
        return code;
    }

    /**
     * The error body's {@code reason}, or empty: for {@code invalid_cursor}, why the cursor was
     * refused ({@code went_back}, {@code other_database}, {@code purged}; docs/protocol.md §4).
     */
    public String reason() {
        return reason;
    }

    /**
     * Whether the server refused the account's session: HTTP 401, whatever its code ({@code
     * invalid_token}: revoked, idle too long, the user disabled or deleted; {@code unauthorized}: no
     * usable token). The request did nothing (authentication comes before anything is applied,
     * docs/protocol.md §3), and sending it again with the same token is refused again, so the run
     * stops and the user is asked to sign in (§2).
     */
    public boolean isSignedOut() {
        return kind == Kind.HTTP && status == 401;
    }

    /**
     * For {@code 409 stale_fencing_token}: the highest fencing token the server has seen from this
     * client for the key; empty when the answer did not carry it (another server implementation).
     */
    public java.util.OptionalLong highestFencingToken() {
        return highestFencingToken < 0
                ? java.util.OptionalLong.empty()
                : java.util.OptionalLong.of(highestFencingToken);
    }

    /** The server's {@code Retry-After} in millis, or -1 when absent. */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }
}
