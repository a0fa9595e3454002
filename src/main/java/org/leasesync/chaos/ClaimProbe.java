package org.leasesync.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Properties;

/**
 * Looks into the cluster's database for a push in flight: a row of {@code idempotency_claims}
 * (docs/reference-server.md, "Idempotency-key claims") made by one of the given instances. The
 * harness uses it to kill an instance while one of its pushes executes. Stateless apart from its
 * settings; each call opens and closes one connection (connect and socket timeouts 2 s). Blocks.
 */
final class ClaimProbe {

    private final String jdbcUrl;
    private final Properties credentials = new Properties();

    /** @param user database user; @param password its password (may be empty) */
    ClaimProbe(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        credentials.setProperty("user", user);
        credentials.setProperty("password", password == null ? "" : password);
        credentials.setProperty("connectTimeout", "2");
        credentials.setProperty("socketTimeout", "2");
    }

    /**
     * Waits for a claim held by one of {@code instanceIds}, asking every 50 ms on one connection.
     *
     * @param within how long to wait at most
     * @return the instance id holding a claim; empty when none appeared in time, or the database
     *     could not be asked (a probe is a hint, never evidence)
     */
    Optional<String> awaitClaim(Collection<String> instanceIds, Duration within) throws InterruptedException {
        if (instanceIds.isEmpty()) {
            return Optional.empty();
        }
        long deadline = System.nanoTime() + within.toNanos();
        try (Connection c = DriverManager.getConnection(jdbcUrl, credentials);
             PreparedStatement ps = c.prepareStatement("SELECT instance_id FROM idempotency_claims WHERE instance_id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("varchar", instanceIds.toArray()));
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Optional.of(rs.getString(1));
                    }
                }
                Thread.sleep(50);
            }
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.empty();
        }
    }
}
