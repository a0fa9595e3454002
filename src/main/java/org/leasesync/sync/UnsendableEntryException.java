package org.leasesync.sync;

/**
 * An outbox entry that cannot be put into a push at all: it breaks the record limits
 * ({@link org.leasesync.protocol.RecordLimits}) — its stored payload is not a JSON object (the local
 * copy is damaged), nests too deep or is too large (saved by an older version). Thrown by {@link SyncRemote#push} before anything is sent, so it is
 * {@link RemoteException.Kind#NOT_SENT}; the push stage sets the entry aside as rejected and pushes
 * the others.
 */
public class UnsendableEntryException extends RemoteException {
    private static final long serialVersionUID = 1L;

    private final String changeId;

    /**
     * @param changeId the entry
     * @param reason what is wrong with it, for the user
     */
    public UnsendableEntryException(String changeId, String reason) {
        super(
                Kind.NOT_SENT,
                0,
                "unsendable_entry",
                -1,
                reason,
                "outbox entry " + changeId + " cannot be sent: " + reason,
                null);
        this.changeId = changeId;
    }

    /** The entry that cannot be sent. */
    public String changeId() {
        return changeId;
    }
}
