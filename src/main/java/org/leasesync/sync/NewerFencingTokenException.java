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
    private static final long serialVersionUID = 1L;

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
     * The lowest epoch the next run should hold if the lease table went back: one above the highest
     * token the server reports having seen from this client ({@code highestToken} of the 409 body,
     * docs/protocol.md §6), so epochs stay dense — each grant +1, each raise just past what the server
     * saw — and never approach {@code Long.MAX_VALUE} in any real lifetime. A server that does not
     * report it gets a fixed step of {@link #UNREPORTED_STEP} (additive, never doubling: reaching
     * {@code Long.MAX_VALUE} that way takes 2^43 refused runs). Saturates at {@code Long.MAX_VALUE}.
     */
    public long nextEpoch() {
        long highest = refusal()
                .flatMap(r -> r.highestFencingToken().isPresent()
                        ? java.util.Optional.of(r.highestFencingToken().getAsLong())
                        : java.util.Optional.empty())
                .orElse(-1L);
        long floor = highest >= 0 ? Math.max(epoch, highest) : epoch;
        long step = highest >= 0 ? 1 : UNREPORTED_STEP;
        return floor > Long.MAX_VALUE - step ? Long.MAX_VALUE : floor + step;
    }

    /** How far the epoch moves when the server refused it without reporting its highest token. */
    public static final long UNREPORTED_STEP = 1L << 20;

    private java.util.Optional<RemoteException> refusal() {
        return getCause() instanceof RemoteException r ? java.util.Optional.of(r) : java.util.Optional.empty();
    }
}
