package org.leasesync.server.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Every difference between the server's two databases, in one place. The SQL everywhere else is
 * the same on both.
 *
 * <ul>
 *   <li>migrations: {@code db/server} (H2) and {@code db/server-postgresql}, the same versions with
 *       each vendor's own types;</li>
 *   <li>instance liveness: on H2 a database belongs to one server process ({@link DataDirLock} or
 *       in-memory), so another instance is never alive; on PostgreSQL an instance is alive while it
 *       holds the session-level advisory lock on {@link #lockKey its key} ({@link InstanceLock});</li>
 *   <li>closing: H2 is shut down with {@code SHUTDOWN}; PostgreSQL outlives its clients.</li>
 * </ul>
 * Stateless, thread-safe.
 */
public enum Dialect {
    H2("classpath:db/server"),
    POSTGRESQL("classpath:db/server-postgresql");

    /** Where the migrations that are the same SQL on both vendors live. */
    private static final String COMMON_MIGRATIONS = "classpath:db/server-common";

    /**
     * The highest version among the server's migrations (the same for both vendors): opening a
     * database already there skips Flyway ({@link org.leasesync.store.SchemaVersion}); a test fails
     * when a migration is added and this is not raised.
     */
    public static final int LATEST_MIGRATION = 8;

    private final String migrations;

    Dialect(String migrations) {
        this.migrations = migrations;
    }

    /**
     * The Flyway locations of this vendor's migrations: its own files, where the SQL differs, and
     * the common ones. Applied migrations never change (Flyway checks their checksums); a new one
     * is written once, in the common location, unless its SQL truly differs. A fresh array.
     */
    public String[] migrations() {
        return new String[] {migrations, COMMON_MIGRATIONS};
    }

    /**
     * Whether the server instance {@code instanceId} — never this one — is alive, judged through
     * {@code c} (in its transaction, if any). On PostgreSQL: it is alive while a session holds its
     * advisory lock exclusively, i.e. while a shared lock on the same key cannot be taken. The
     * probe takes that shared lock for the rest of the transaction (statement, in auto-commit) when
     * it can; shared locks do not conflict with each other, so probes on several connections at once
     * all see a dead instance as dead.
     */
    public boolean isOtherInstanceAlive(Connection c, String instanceId) throws SQLException {
        if (this == H2) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_xact_lock_shared(?)")) {
            ps.setLong(1, lockKey(instanceId));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return !rs.getBoolean(1);
            }
        }
    }

    /** Before the pool closes: H2 shuts its database down; PostgreSQL needs nothing. */
    void shutdown(Connection c) throws SQLException {
        if (this == H2) {
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }

    /** The 64-bit advisory lock key of an instance: the first 8 bytes of SHA-256 of its id. */
    static long lockKey(String instanceId) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(instanceId.getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(d, 0, 8).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
