package org.leasesync.sync;

import org.leasesync.lease.LeasesyncException;

/**
 * The sync server refused a pull or push with {@code 409 stale_fencing_token}: it has seen a
 * fencing token from this device (its client id) at least as high as the run's epoch. Either another
 * run of the key took it over — then the lease row has moved on too — or this device's lease table
 * went back in time (a restored copy of the local database) and its epochs must jump ahead. The
 * worker turns it into {@link org.leasesync.run.RunOutcome#behindServer}; the coordinator
 * tells the two apart by whether the lease row is still the run's.
 */
public class NewerFencingTokenException extends LeasesyncException {

    private final long epoch;

    /** @param epoch the run's epoch, which the server refused */
    public NewerFencingTokenException(long epoch, RemoteException cause) {
        super("the sync server has seen a newer fencing token for this key than this run's epoch " + epoch, cause);
        this.epoch = epoch;
    }

    /** The run's epoch, which the server refused. */
    public long epoch() {
        return epoch;
    }

    /**
     * The lowest epoch the next run should hold if the lease table went back: far enough ahead to
     * pass any token a device can have used since (2^20 more runs), and doubling, so that even a
     * larger gap closes within a few runs.
     */
    public long nextEpoch() {
        if (epoch >= Long.MAX_VALUE / 4) {
            return Long.MAX_VALUE / 2;
        }
        return Math.max(epoch * 2, epoch + (1L << 20));
    }
}
