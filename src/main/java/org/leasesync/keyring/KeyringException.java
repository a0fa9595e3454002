package org.leasesync.keyring;

import org.leasesync.lease.LeasesyncException;

/** A token could not be stored, read or removed; the message names the place and why (never the token). */
public class KeyringException extends LeasesyncException {
    private static final long serialVersionUID = 1L;

    public KeyringException(String message) {
        super(message);
    }

    public KeyringException(String message, Throwable cause) {
        super(message, cause);
    }
}
