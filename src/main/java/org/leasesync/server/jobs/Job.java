package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import org.leasesync.lease.JobKey;

/**
 * One periodic piece of work of the sync server, run under the lease of its {@link JobKey} by
 * {@link JobRunner}: a run starts at a {@linkplain #start position} and advances in bounded
 * {@linkplain #step batches}. Each batch runs inside the caller's fenced transaction, which also
 * writes the run's checkpoint (the position the batch returned), so a run taken over by another
 * instance resumes exactly where the last committed batch left it.
 *
 * <p>Implementations are stateless and thread-safe; all state is in the position.
 *
 * @param <P> the position: an immutable record that Jackson can write and read (it is stored as
 *     JSON in {@code job_checkpoints.position_json}, at most 2,000 characters)
 */
public interface Job<P> {

    /** The job's key, {@code job:NAME}. */
    JobKey key();

    /** The job's name (the key without {@code job:}). */
    default String name() {
        return key().name();
    }

    /** The position type, for reading checkpoints back. */
    Class<P> positionType();

    /**
     * Where a new run starts, given its start time by the server clock (e.g. the cutoff it deletes
     * up to, fixed for the whole run, also when it is resumed elsewhere).
     */
    P start(Instant now);

    /**
     * Does at most {@code batchSize} rows of work in the caller's transaction, from {@code from}.
     * Must not commit, roll back or change the connection's auto-commit.
     *
     * @param now the server clock's time of this batch (for what the batch stores; cutoffs belong in
     *     the position)
     *
     * @return the position after this batch, how many rows it processed, and whether the run is done
     * @throws SQLException if a statement fails; the caller's transaction is then rolled back and
     *     the checkpoint stays where it was
     */
    Batch<P> step(Connection c, P from, int batchSize, Instant now) throws SQLException;

    /**
     * What one batch did.
     *
     * @param next the position to continue from (also when finished: it is shown as the last one)
     * @param processed rows processed in this batch, {@code >= 0}
     * @param finished true when nothing is left to do in this run
     */
    record Batch<P>(P next, long processed, boolean finished) {

        /** @throws IllegalArgumentException if {@code processed < 0} */
        public Batch {
            Objects.requireNonNull(next, "next");
            if (processed < 0) {
                throw new IllegalArgumentException("processed must be >= 0, got " + processed);
            }
        }

        /** More to do after this batch. */
        public static <P> Batch<P> more(P next, long processed) {
            return new Batch<>(next, processed, false);
        }

        /** This batch ended the run. */
        public static <P> Batch<P> done(P next, long processed) {
            return new Batch<>(next, processed, true);
        }
    }
}
