package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.leasesync.lease.JobKey;

/**
 * {@code expire-idempotency-keys}: deletes the stored responses of completed pushes whose key
 * retention has passed ({@code idempotency_keys.completed_at_ms <= run start - retention}), oldest
 * first, in batches. Lookups already ignore such records (docs/protocol.md §5.3); this only frees the
 * space, off the request path. The cutoff is fixed when the occurrence starts and kept in the
 * checkpoint, so a resumed run deletes exactly what the interrupted one would have. Stateless.
 */
public final class ExpireIdempotencyKeysJob implements Job<ExpireIdempotencyKeysJob.Position> {

    /** Where a run is: the cutoff, epoch milliseconds (records completed at or before it are expired). */
    public record Position(long cutoffMs) {}

    private final Duration retention;

    /** @param retention the key retention ({@code --key-retention}) */
    public ExpireIdempotencyKeysJob(Duration retention) {
        this.retention = retention;
    }

    @Override
    public JobKey key() {
        return JobKey.of(StandardJobs.EXPIRE_IDEMPOTENCY_KEYS);
    }

    @Override
    public Class<Position> positionType() {
        return Position.class;
    }

    @Override
    public Position start(Instant now) {
        return new Position(now.minus(retention).toEpochMilli());
    }

    @Override
    public Batch<Position> step(Connection c, Position from, int batchSize, Instant now) throws SQLException {
        List<String[]> expired = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT user_id, idem_key FROM idempotency_keys"
                + " WHERE completed_at_ms <= ? ORDER BY completed_at_ms FETCH FIRST ? ROWS ONLY")) {
            ps.setLong(1, from.cutoffMs());
            ps.setInt(2, batchSize);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    expired.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        if (expired.isEmpty()) {
            return Batch.done(from, 0);
        }
        long deleted = 0;
        // The cutoff again: a key used again meanwhile holds a fresh record, which stays.
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND completed_at_ms <= ?")) {
            for (String[] k : expired) {
                ps.setString(1, k[0]);
                ps.setString(2, k[1]);
                ps.setLong(3, from.cutoffMs());
                ps.addBatch();
            }
            for (int n : ps.executeBatch()) {
                deleted += Math.max(n, 0);
            }
        }
        return expired.size() < batchSize ? Batch.done(from, deleted) : Batch.more(from, deleted);
    }
}
