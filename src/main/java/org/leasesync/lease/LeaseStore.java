package org.leasesync.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.leasesync.run.RunStore;

/**
 * Storage SPI for lease rows, implemented by the {@code store} package. Holds no lease policy: when
 * a takeover is allowed is decided by {@link TaskRegistry}; this interface only executes atomic
 * conditional writes (design.md invariant 2). Works with any {@link LeaseKey}: task keys and job
 * keys share one table, told apart by their written form.
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
    Optional<LeaseRecord> tryGrant(LeaseKey key, OwnerId owner, Duration ttl, Instant now,
                                   Optional<LeaseRecord> takeOver);

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
     * Whether {@link #inTransactionWith} can bind this store and {@code runs} to one local
     * transaction: true only when both write to the same database (for the SQL stores: the same
     * database object). Does not block.
     *
     * <p>The default is false: a store without transactions, or a run store that wraps or
     * replaces the SQL one, keeps the separate grant ({@link TaskRegistry#tryAcquire}).
     */
    default boolean canJoin(RunStore runs) {
        return false;
    }

    /**
     * Runs {@code work} in ONE new local transaction with a view of this store and a view of
     * {@code runs}, both bound to it: every grant, read and fenced write made through the two views
     * commits together when {@code work} returns, and none of them when it throws (the transaction
     * is rolled back, then the exception is rethrown unchanged). The views are confined to the
     * calling thread and must not be used after {@code work} returns. A contention of a grant made
     * through the view (another transaction holds or inserted the row) answers "not granted" as
     * usual; on PostgreSQL such a failed statement leaves the transaction unusable, so after an
     * empty grant {@code work} must throw. Blocks on the database; the lease row a grant updates
     * stays locked until the transaction ends.
     *
     * <p>If the connection breaks before the commit is sent, the whole transaction is lost and
     * {@code work} may be run again: it must keep no state of an attempt that did not commit. A
     * failure of the commit itself is ambiguous (the grant may have committed); it is thrown.
     *
     * @param what a short description, used in messages
     * @return what {@code work} returned, once committed
     * @throws UnsupportedOperationException if {@link #canJoin} is false for {@code runs} (the default)
     * @throws StoreException if the database fails (nothing is written)
     */
    default <T> T inTransactionWith(RunStore runs, String what,
                                    java.util.function.BiFunction<LeaseStore, RunStore, T> work) {
        throw new UnsupportedOperationException("this lease store cannot share a transaction with " + runs);
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
