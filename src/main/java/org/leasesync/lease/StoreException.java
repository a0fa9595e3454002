package org.leasesync.lease;

/**
 * The local store failed: the database could not be opened, is locked, corrupt, or a statement
 * failed. Thrown once at the store boundary with the JDBC cause kept; the message names the file
 * or the operation.
 */
public class StoreException extends LeasesyncException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreException(String message) {
        super(message);
    }
}
