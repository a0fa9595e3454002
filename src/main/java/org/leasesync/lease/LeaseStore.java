package org.leasesync.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for lease rows, implemented by the {@code store} package. Holds no lease policy: when
 * a takeover is allowed is decided by {@link TaskRegistry}; this interface only executes atomic
 * conditional writes (invariant 2, a grant is one atomic conditional write: docs/architecture.md). Works
 * with any {@link LeaseKey}: task keys and job
 * keys share one table, told apart by their written form.
 *
 * <p>A store that can also grant inside a transaction shared with other writes implements
 * {@link JointGrantStore} as well.
 *
 * <p>Implementations are thread-safe and block on database I/O. All methods throw
 * {@link StoreException} when the database fails; contention is never an exception.
 */
public interface LeaseStore {

    /**
     * Grants the key to {@code owner} with ONE atomic conditional write: insert a new row, or update
     * the existing row only if it is free or is still exactly {@code takeOver} (same owner, epoch
     * and heartbeat, which the caller judged expired). The epoch increases by one.
     *
     * @param takeOver the stale holder's row as observed, or empty to accept only a free key
     * @param now wall-clock time, stored for display
     * @return the new row if granted; empty if the key is held by someone else (contention)
     */
    Optional<LeaseRecord> tryGrant(
            LeaseKey key, OwnerId owner, Duration ttl, Instant now, Optional<LeaseRecord> takeOver);

    /**
     * Grants the key to {@code owner} only if its row exists and is free (released): ONE atomic
     * conditional write that also returns the new row, with no read before it. The registry's fast
     * path; {@link #tryGrant} handles a key never granted and takeovers.
     *
     * <p>The default delegates to {@code tryGrant(key, owner, ttl, now, Optional.empty())}.
     *
     * @param now wall-clock time, stored for display
     * @return the new row if granted; empty if the key is held, or has no row yet
     */
    default Optional<LeaseRecord> grantIfFree(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        return tryGrant(key, owner, ttl, now, Optional.empty());
    }

    /**
     * Grants the key to {@code owner} only if it has no row yet (was never granted): ONE atomic
     * conditional insert with epoch 1, with no read before it. The registry's path for a key it has
     * no news of once {@link #grantIfFree} found no free row; {@link #tryGrant} handles takeovers.
     *
     * <p>The default delegates to {@code tryGrant(key, owner, ttl, now, Optional.empty())}.
     *
     * @param now wall-clock time, stored for display
     * @return the new row (epoch 1) if granted; empty if the key has a row (held or free), or
     *     another owner inserted it first
     */
    default Optional<LeaseRecord> grantIfNew(LeaseKey key, OwnerId owner, Duration ttl, Instant now) {
        return tryGrant(key, owner, ttl, now, Optional.empty());
    }

    /**
     * Extends the lease if {@code fence} is still current (owner and epoch unchanged); bumps the
     * heartbeat.
     *
     * @return false if the lease is no longer held with this fence (lost)
     */
    boolean renew(Fence fence, Duration ttl, Instant now);

    /**
     * Frees the key if {@code fence} is still current. The epoch is kept, so the next grant gets a
     * higher one.
     *
     * @return false if the lease was no longer held with this fence (nothing changed)
     */
    boolean release(Fence fence, Instant now);

    /**
     * Raises the epoch of a held lease to {@code newEpoch} if {@code fence} is still current (owner
     * and epoch unchanged): one conditional write, like a renewal (the heartbeat moves too). For a
     * lease table that went back in time (a restored or partly reset database): the next grant then
     * gets {@code newEpoch + 1}, above every epoch this key already used.
     *
     * @param newEpoch greater than {@code fence.epoch()}
     * @return false if the lease is no longer held with this fence (nothing changed)
     */
    boolean raiseEpoch(Fence fence, long newEpoch, Instant now);

    /** The key's row, or empty if the key was never granted. */
    Optional<LeaseRecord> read(LeaseKey key);

    /** All rows (task keys and job keys), ordered by the written key. */
    List<LeaseRecord> readAll();
}
