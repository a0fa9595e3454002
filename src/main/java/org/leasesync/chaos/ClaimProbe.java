package org.leasesync.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Looks into the cluster's database for work in flight on given instances, so that the harness can
 * kill an instance in the middle of it: a push (a row of {@code idempotency_claims},
 * docs/reference-server.md "Idempotency-key claims") or a server job run (a row of {@code job_runs}
 * still {@code running}, "Jobs"). Stateless apart from its database; each call opens and closes one
 * connection (connect and socket timeouts 2 s). Blocks. A probe is a hint, never evidence.
 */
final class ClaimProbe {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final ClusterDatabase db;

    ClaimProbe(ClusterDatabase db) {
        this.db = db;
    }

    /**
     * Waits for an idempotency-key claim held by one of {@code instanceIds}, asking every 50 ms.
     *
     * @param within how long to wait at most
     * @return the instance id holding a claim; empty when none appeared in time, or the database
     *     could not be asked
     */
    Optional<String> awaitClaim(Collection<String> instanceIds, Duration within) throws InterruptedException {
        if (instanceIds.isEmpty()) {
            return Optional.empty();
        }
        long deadline = System.nanoTime() + within.toNanos();
        try (Connection c = db.connect(TIMEOUT);
                PreparedStatement ps =
                        c.prepareStatement("SELECT instance_id FROM idempotency_claims WHERE instance_id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("varchar", instanceIds.toArray()));
            do {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Optional.of(rs.getString(1));
                    }
                }
                Thread.sleep(50);
            } while (System.nanoTime() < deadline);
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    /**
     * The instances among {@code instanceIds} with a server job run still {@code running} (with
     * {@code serve --job-pause}, typically a run that paused after its first batch). Asks once.
     *
     * @return their ids, sorted; empty when there are none, or the database could not be asked
     */
    Set<String> runningJobs(Collection<String> instanceIds) {
        Set<String> out = new TreeSet<>();
        if (instanceIds.isEmpty()) {
            return out;
        }
        try (Connection c = db.connect(TIMEOUT);
                PreparedStatement ps = c.prepareStatement(
                        "SELECT DISTINCT instance_id FROM job_runs WHERE result = 'running' AND instance_id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("varchar", instanceIds.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            out.clear();
        }
        return out;
    }
}
