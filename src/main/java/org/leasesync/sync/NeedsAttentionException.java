package org.leasesync.sync;

import org.leasesync.lease.LeasesyncException;

/** The outcome of a step is unknown and cannot be confirmed: the run fails closed. */
public class NeedsAttentionException extends LeasesyncException {
    private static final long serialVersionUID = 1L;

    public NeedsAttentionException(String message) {
        super(message);
    }

    public NeedsAttentionException(String message, Throwable cause) {
        super(message, cause);
    }
}
