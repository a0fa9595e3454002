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
 * {@code purge-tombstones}: deletes tombstones (records with {@code deleted = TRUE}) older than the
 * tombstone retention ({@code updated_at_ms <= run start - retention}), one user+scope at a time in
 * key order, and raises that user+scope's {@linkplain TombstoneHorizons horizon} in the same
 * transaction. Each batch first takes the user+scope lock that pushes and fenced pulls take
 * ({@code scope_state ... FOR UPDATE}), so it never races a push that re-creates a record, and a
 * pull sees the deletion and the new horizon together. The position (cutoff, and the user+scope to
 * continue at) is the checkpoint. Stateless.
 */
public final class PurgeTombstonesJob implements Job<PurgeTombstonesJob.Position> {

    /**
     * Where a run is.
     *
     * @param cutoffMs tombstones at or before this time (epoch milliseconds) are old enough
     * @param user with {@code scope}: the user+scope to continue at (every user+scope before it in
     *     key order is done); {@code ""} at the start
     * @param scope see {@code user}
     */
    public record Position(long cutoffMs, String user, String scope) {}

    private record Tombstone(String recordId, long seq, long version) {}

    private final Duration retention;

    /** @param retention how long tombstones are kept ({@code --tombstone-retention}) */
    public PurgeTombstonesJob(Duration retention) {
        this.retention = retention;
    }

    @Override
    public JobKey key() {
        return JobKey.of(StandardJobs.PURGE_TOMBSTONES);
    }

    @Override
    public Class<Position> positionType() {
        return Position.class;
    }

    @Override
    public Position start(Instant now) {
        return new Position(now.minus(retention).toEpochMilli(), "", "");
    }

    @Override
    public Batch<Position> step(Connection c, Position from, int batchSize, Instant now) throws SQLException {
        String user = null;
        String scope = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT user_id, scope FROM sync_records WHERE deleted = TRUE"
                + " AND updated_at_ms <= ? AND (user_id > ? OR (user_id = ? AND scope >= ?))"
                + " ORDER BY user_id, scope FETCH FIRST 1 ROWS ONLY")) {
            ps.setLong(1, from.cutoffMs());
            ps.setString(2, from.user());
            ps.setString(3, from.user());
            ps.setString(4, from.scope());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    user = rs.getString(1);
                    scope = rs.getString(2);
                }
            }
        }
        if (user == null) {
            return Batch.done(from, 0);
        }
        lockScope(c, user, scope);
        List<Tombstone> old = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT record_id, seq, record_version FROM sync_records"
                + " WHERE user_id = ? AND scope = ? AND deleted = TRUE AND updated_at_ms <= ?"
                + " ORDER BY seq FETCH FIRST ? ROWS ONLY")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setLong(3, from.cutoffMs());
            ps.setInt(4, batchSize);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    old.add(new Tombstone(rs.getString(1), rs.getLong(2), rs.getLong(3)));
                }
            }
        }
        long deleted = 0;
        long maxSeq = 0;
        long maxVersion = 0;
        if (!old.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM sync_records WHERE user_id = ? AND scope = ?"
                    + " AND record_id = ? AND seq = ? AND deleted = TRUE")) {
                for (Tombstone t : old) {
                    ps.setString(1, user);
                    ps.setString(2, scope);
                    ps.setString(3, t.recordId());
                    ps.setLong(4, t.seq());
                    ps.addBatch();
                    maxSeq = Math.max(maxSeq, t.seq());
                    maxVersion = Math.max(maxVersion, t.version());
                }
                for (int n : ps.executeBatch()) {
                    deleted += Math.max(n, 0);
                }
            }
            TombstoneHorizons.raise(c, user, scope, maxSeq, maxVersion, now.toEpochMilli());
        }
        return Batch.more(new Position(from.cutoffMs(), user, scope), deleted);
    }

    /** The same lock pushes and fenced pulls take on the user+scope ({@code RecordStore.lockScope}). */
    private static void lockScope(Connection c, String user, String scope) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT last_seq FROM scope_state WHERE user_id = ? AND scope = ? FOR UPDATE")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.executeQuery().close();
        }
    }
}
