package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import org.leasesync.lease.Fence;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.StoreException;

/**
 * The one guarded-write primitive (invariant 4, fencing: docs/architecture.md): runs a local transaction
 * that commits
 * only if (key, owner, epoch) is still the current lease row. Works for any lease key (a sync run's
 * task key, a server job's job key) over any {@link SqlDatabase} whose schema holds the lease table
 * and the tables the work writes. The lease row is locked
 * ({@code SELECT ... FOR UPDATE}) for the length of the transaction, so a takeover cannot slip in
 * between the check and the commit: it waits, then finds the epoch it must beat already used.
 *
 * <p>Thread-safe; blocks on the database.
 */
public final class JdbcGuard {

    private final SqlDatabase db;

    /** @param db the database holding the lease table and the data written under it */
    public JdbcGuard(SqlDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    /**
     * Runs {@code work} in one transaction, committed only if {@code fence} is current. Blocks on the
     * database, also while a takeover of the key holds the lease row (up to the lock timeout).
     *
     * @param what a short description of the write, used in messages
     * @return what {@code work} returned
     * @throws LeaseLostException if the fence is not current (nothing is written)
     * @throws StoreException if the database fails (nothing is written)
     */
    public <T> T inTransaction(Fence fence, String what, SqlWork<T> work) {
        return db.transaction(what, fenced(fence, what, work));
    }

    /**
     * {@link #inTransaction} for work that comes to the same committed once or twice: also run again
     * when its commit broke ({@link SqlDatabase#idempotentTransaction}). The fence is checked again
     * each time, so a repeat never writes under a lease that was lost meanwhile.
     *
     * @throws LeaseLostException if the fence is not current (nothing is written by that attempt)
     * @throws StoreException if the database fails
     */
    public <T> T inIdempotentTransaction(Fence fence, String what, SqlWork<T> work) {
        return db.idempotentTransaction(what, fenced(fence, what, work));
    }

    private <T> SqlWork<T> fenced(Fence fence, String what, SqlWork<T> work) {
        return c -> {
            if (!lockFence(c, fence)) {
                c.rollback();
                throw new LeaseLostException(fence, LeaseLoss.TAKEN_OVER, "refused " + what);
            }
            return work.apply(c);
        };
    }

    private boolean lockFence(Connection c, Fence fence) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT epoch FROM lease WHERE task_key = ? AND owner_id = ? AND epoch = ?"
                        + db.dialect().forUpdate())) {
            ps.setString(1, fence.key().asString());
            ps.setString(2, fence.owner().asString());
            ps.setLong(3, fence.epoch());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
