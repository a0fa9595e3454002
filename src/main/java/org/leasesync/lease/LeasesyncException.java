package org.leasesync.lease;

/**
 * Root of leasesync's one exception hierarchy. Expected outcomes — a busy key,
 * zero rows, a conflict — are return values, never exceptions; an exception means something broke.
 * Messages say what and where, for a human; the cause is kept for the log.
 */
public class LeasesyncException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LeasesyncException(String message) {
        super(message);
    }

    public LeasesyncException(String message, Throwable cause) {
        super(message, cause);
    }
}
