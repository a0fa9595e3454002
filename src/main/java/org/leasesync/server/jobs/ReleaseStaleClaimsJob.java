package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.leasesync.lease.JobKey;

/**
 * {@code release-stale-claims}: deletes idempotency-key claims ({@code idempotency_claims}) left by
 * server instances that are gone (a crash, {@code kill -9}, a release that never got through). Such
 * a row already counts as absent for requests (it is replaced by the next request with the key);
 * this only clears it off the table. One instance at a time, in id order: an instance that is alive
 * ({@link InstanceLiveness}) is skipped, a dead one's rows are deleted in batches. This instance's
 * own rows are never touched (its requests release them; failed releases are retried by its
 * housekeeping thread). Stateless.
 */
public final class ReleaseStaleClaimsJob implements Job<ReleaseStaleClaimsJob.Position> {

    /** Where a run is: every instance id up to {@code afterInstance} was dealt with ({@code ""} at the start). */
    public record Position(String afterInstance) {}

    private record ClaimRow(String user, String key, String claimId) {}

    private final String instanceId;
    private final InstanceLiveness liveness;

    /**
     * @param instanceId this instance's id (its claims are left alone)
     * @param liveness tells whether another instance is alive
     */
    public ReleaseStaleClaimsJob(String instanceId, InstanceLiveness liveness) {
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
        this.liveness = Objects.requireNonNull(liveness, "liveness");
    }

    @Override
    public JobKey key() {
        return JobKey.of(StandardJobs.RELEASE_STALE_CLAIMS);
    }

    @Override
    public Class<Position> positionType() {
        return Position.class;
    }

    @Override
    public Position start(Instant now) {
        return new Position("");
    }

    @Override
    public Batch<Position> step(Connection c, Position from, int batchSize, Instant now) throws SQLException {
        String other;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT MIN(instance_id) FROM idempotency_claims" + " WHERE instance_id <> ? AND instance_id > ?")) {
            ps.setString(1, instanceId);
            ps.setString(2, from.afterInstance());
            try (ResultSet rs = ps.executeQuery()) {
                other = rs.next() ? rs.getString(1) : null;
            }
        }
        if (other == null) {
            return Batch.done(from, 0);
        }
        if (liveness.isAlive(c, other)) {
            return Batch.more(new Position(other), 0);
        }
        List<ClaimRow> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT user_id, idem_key, claim_id FROM idempotency_claims"
                + " WHERE instance_id = ? FETCH FIRST ? ROWS ONLY")) {
            ps.setString(1, other);
            ps.setInt(2, batchSize);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new ClaimRow(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
        }
        long deleted = 0;
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM idempotency_claims WHERE user_id = ? AND idem_key = ? AND claim_id = ?")) {
            for (ClaimRow r : rows) {
                ps.setString(1, r.user());
                ps.setString(2, r.key());
                ps.setString(3, r.claimId());
                ps.addBatch();
            }
            if (!rows.isEmpty()) {
                for (int n : ps.executeBatch()) {
                    deleted += Math.max(n, 0);
                }
            }
        }
        // A full batch: this instance may have more rows; look at it again. Else go on after it.
        return Batch.more(rows.size() < batchSize ? new Position(other) : from, deleted);
    }
}
