package org.leasesync.remote;

/**
 * How one request to one server URL failed, as far as the client can tell — what decides the safe
 * next step ({@link Failover}, docs/architecture.md "Failure classes"). The classes differ in two
 * facts: whether the request can have reached the server's handlers ({@link #mayHaveActed()}), and
 * whether the instance should be avoided for a while ({@link #unhealthy()}).
 *
 * <p>Next step per class: an idempotent read (pull, push-status query, sign-out) goes to the next
 * URL after any class; a push or a sign-in goes to the next URL only when the class proves the
 * request did nothing; otherwise the push is ambiguous and the caller asks the cluster about its
 * idempotency key before sending anything again (invariant 7, query before retry: docs/architecture.md).
 */
public enum FailureClass {

    /**
     * Never sent: no connection (unknown host, no route, connect timeout, a TLS handshake the client
     * refused), so no byte of the request was written.
     */
    NEVER_SENT(false, true),

    /** Connection refused: nothing listens on the port (the instance is down). Never sent. */
    REFUSED(false, true),

    /** The instance answered {@code 503}: it stored nothing (shutting down, or without its database). */
    UNAVAILABLE(false, true),

    /**
     * Timed out before any response: the request was written and no status line came within the
     * read or call timeout — an instance that accepts TCP but never answers (stopped with SIGSTOP, a
     * paused VM, a wedged process) or one slower than the timeouts. The server may have acted.
     */
    NO_RESPONSE(true, true),

    /**
     * The connection broke after the request was written and before a status line (reset or closed,
     * e.g. a pooled connection the server had just closed). The server may have acted; one break is
     * not a sign of an unhealthy instance.
     */
    DROPPED(true, false),

    /**
     * Answered late: a gateway in front of the instance answered {@code 502} or {@code 504} because
     * the instance behind it did not answer in time or broke off. The instance may have acted; the
     * gateway itself answers, so the URL is not avoided.
     */
    ANSWERED_LATE(true, false),

    /**
     * Slow body: the status line and headers arrived, and the body then stalled past the read or
     * call timeout, or broke off. The server has acted on the request (it answered), but its answer
     * is lost.
     */
    SLOW_BODY(true, true);

    private final boolean mayHaveActed;
    private final boolean unhealthy;

    FailureClass(boolean mayHaveActed, boolean unhealthy) {
        this.mayHaveActed = mayHaveActed;
        this.unhealthy = unhealthy;
    }

    /**
     * Whether the server may have acted on the request: false proves it did nothing, so even a push
     * may be sent to another URL.
     */
    public boolean mayHaveActed() {
        return mayHaveActed;
    }

    /**
     * Whether the instance is avoided for a while after this ({@link InstanceHealth}): it is down,
     * frozen, or too slow, so the next call would likely pay the same timeout.
     */
    public boolean unhealthy() {
        return unhealthy;
    }
}
