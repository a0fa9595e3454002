package org.leasesync.lease;

/** Why a holder lost its lease; delivered as the lease-lost signal. */
public enum LeaseLoss {
    /** The epoch or owner in the database is no longer ours: someone took the key over. */
    TAKEN_OVER("another owner took the key over"),
    /** No renewal succeeded within the TTL (as measured on the holder's monotonic clock). */
    EXPIRED("the lease expired before it could be renewed"),
    /** The coordinator cancelled the run (user cancel, account switch, shutdown). */
    CANCELLED("the run was cancelled"),
    /** The holder released the lease normally. */
    RELEASED("the lease was released");

    private final String description;

    LeaseLoss(String description) {
        this.description = description;
    }

    /** A short human description. */
    public String describe() {
        return description;
    }
}
