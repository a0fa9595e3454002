package org.leasesync.lease;

import java.util.function.BiFunction;

/**
 * Optional capability of a {@link LeaseStore}: grant a lease and write a partner store's data in
 * ONE local transaction, so that a grant and what it starts (for the client: the run row, its first
 * trigger and the recovery of an unfinished run) are one commit. A lease store that cannot do this
 * simply does not implement it; {@link TaskRegistry#canGrantJointly} then answers false and callers
 * keep the separate grant ({@link TaskRegistry#tryAcquire}).
 *
 * <p>The partner is typed by the caller: the lease layer knows nothing of what it stores. An
 * implementation decides in {@link #canJoin} which partners it can bind (for the SQL store: a run
 * store over the same database object).
 *
 * <p>Implementations are thread-safe; {@link #canJoin} does not block, {@link #inTransactionWith}
 * blocks on the database.
 */
public interface JointGrantStore {

    /**
     * Whether {@link #inTransactionWith} can bind this store and {@code partner} to one local
     * transaction: true only when both write to the same database. Does not block.
     *
     * @return false for a partner of a kind this store does not know, or one over another database
     */
    boolean canJoin(Object partner);

    /**
     * Runs {@code work} in ONE new local transaction with a view of this store and a view of
     * {@code partner}, both bound to it: every grant, read and fenced write made through the two views
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
     * @param <P> the partner's type; the view given to {@code work} is of the partner's own class
     * @param what a short description, used in messages
     * @return what {@code work} returned, once committed
     * @throws UnsupportedOperationException if {@link #canJoin} is false for {@code partner}
     * @throws StoreException if the database fails (nothing is written)
     */
    <P, T> T inTransactionWith(P partner, String what, BiFunction<LeaseStore, P, T> work);
}
