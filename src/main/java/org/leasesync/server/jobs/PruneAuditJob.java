package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.leasesync.lease.JobKey;

/**
 * {@code prune-audit}: deletes {@code request_audit} rows older than the audit retention
 * ({@code at_ms <= run start - retention}), in batches by {@code seq}: each batch takes the next
 * old rows after the position's seq, deletes them, and moves the position to the last. The cutoff
 * and the position are the checkpoint, so a resumed run continues after the last committed batch
 * with the same cutoff. Stateless.
 */
public final class PruneAuditJob implements Job<PruneAuditJob.Position> {

    /**
     * Where a run is.
     *
     * @param cutoffMs rows at or before this time (epoch milliseconds) are old enough
     * @param afterSeq every old row up to this seq was deleted by this occurrence
     */
    public record Position(long cutoffMs, long afterSeq) {}

    private final Duration retention;

    /** @param retention how long audit rows are kept ({@code --audit-retention}) */
    public PruneAuditJob(Duration retention) {
        this.retention = retention;
    }

    @Override
    public JobKey key() {
        return JobKey.of(StandardJobs.PRUNE_AUDIT);
    }

    @Override
    public Class<Position> positionType() {
        return Position.class;
    }

    @Override
    public Position start(Instant now) {
        return new Position(now.minus(retention).toEpochMilli(), 0);
    }

    @Override
    public Batch<Position> step(Connection c, Position from, int batchSize, Instant now) throws SQLException {
        long first = -1;
        long last = -1;
        int found = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT seq FROM request_audit WHERE seq > ? AND at_ms <= ?"
                + " ORDER BY seq FETCH FIRST ? ROWS ONLY")) {
            ps.setLong(1, from.afterSeq());
            ps.setLong(2, from.cutoffMs());
            ps.setInt(3, batchSize);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    last = rs.getLong(1);
                    if (found++ == 0) {
                        first = last;
                    }
                }
            }
        }
        if (found == 0) {
            return Batch.done(from, 0);
        }
        long deleted;
        try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM request_audit WHERE seq >= ? AND seq <= ? AND at_ms <= ?")) {
            ps.setLong(1, first);
            ps.setLong(2, last);
            ps.setLong(3, from.cutoffMs());
            deleted = ps.executeUpdate();
        }
        Position next = new Position(from.cutoffMs(), last);
        return found < batchSize ? Batch.done(next, deleted) : Batch.more(next, deleted);
    }
}
