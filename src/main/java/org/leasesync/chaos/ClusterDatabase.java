package org.leasesync.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/**
 * The cluster's PostgreSQL database as the harness sees it: where it is and with which credentials
 * ({@code LEASESYNC_DB_USER} / {@code LEASESYNC_DB_PASSWORD}, the instances' own). Used to look for a
 * push or job run in flight ({@link ClaimProbe}) and to read every job run after the run
 * ({@link JobRunCheck#read}). Immutable; thread-safe.
 *
 * @param jdbcUrl {@code jdbc:postgresql://...}
 * @param user database user
 * @param password its password (empty when none)
 */
record ClusterDatabase(String jdbcUrl, String user, String password) {

    ClusterDatabase {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("the cluster database must be a jdbc:postgresql: URL, got " + jdbcUrl);
        }
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("the cluster database user must not be blank");
        }
        password = password == null ? "" : password;
    }

    /**
     * Opens a connection (the caller closes it). Blocks up to {@code timeout} to connect; each
     * statement then waits up to {@code timeout} for an answer.
     *
     * @throws SQLException when the database cannot be reached or refuses the credentials
     */
    Connection connect(Duration timeout) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        String seconds = String.valueOf(Math.max(1, timeout.toSeconds()));
        p.setProperty("connectTimeout", seconds);
        p.setProperty("socketTimeout", seconds);
        return DriverManager.getConnection(jdbcUrl, p);
    }

    @Override
    public String toString() {
        return "ClusterDatabase[" + jdbcUrl + " as " + user + "]";
    }
}
