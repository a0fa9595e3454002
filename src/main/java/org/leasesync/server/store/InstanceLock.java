package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.leasesync.server.http.PushService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server instance's proof of life: a session-level advisory lock on
 * {@link Dialect#lockKey its instance key}, held on a connection of its own (not the pool's, whose
 * connections come and go) for the instance's lifetime. Other instances judge its idempotency-key
 * claims by whether they can take that lock ({@link Dialect#isOtherInstanceAlive}): a process that
 * died — {@code kill -9} included — loses its session, PostgreSQL releases the lock at once, and its
 * claims are stale from then on.
 *
 * <p>When the connection breaks (database restarted, network cut), {@link #maintain()} opens a new
 * one and takes the lock again; in between, other instances may judge this instance's claims stale,
 * which {@link PushService}'s re-check of the stored idempotency record inside the push transaction
 * makes harmless. Thread-safe (synchronised); every method blocks on the database.
 */
final class InstanceLock implements AutoCloseable {

    /** Opens a new connection. */
    @FunctionalInterface
    interface Connector {
        Connection connect() throws SQLException;
    }

    private static final Logger log = LoggerFactory.getLogger(InstanceLock.class);

    private final Connector connector;
    private final String instanceId;
    private final long key;
    private Connection connection;
    private boolean closed;

    private InstanceLock(Connector connector, String instanceId) {
        this.connector = connector;
        this.instanceId = instanceId;
        this.key = Dialect.lockKey(instanceId);
    }

    /**
     * Connects and takes the lock.
     *
     * @throws SQLException if the database cannot be reached or the lock is held (another live
     *     instance with the same id, which a random part in every id rules out; or, for a moment,
     *     another instance's liveness probe)
     */
    static InstanceLock acquire(Connector connector, String instanceId) throws SQLException {
        InstanceLock lock = new InstanceLock(connector, instanceId);
        synchronized (lock) {
            lock.connection = lock.lockOn(connector.connect());
        }
        return lock;
    }

    private Connection lockOn(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new SQLException("the instance lock of " + instanceId + " is held by another session");
                }
            }
            return c;
        } catch (SQLException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /**
     * Checks the lock's connection and, if it broke, connects and locks again. Never throws.
     *
     * @return true if the lock is held when this returns
     */
    synchronized boolean maintain() {
        if (closed) {
            return false;
        }
        try {
            if (connection != null && connection.isValid(2)) {
                return true;
            }
        } catch (SQLException e) {
            log.debug("instance lock connection check failed: {}", e.toString());
        }
        closeQuietly(connection);
        connection = null;
        try {
            connection = lockOn(connector.connect());
            log.warn(
                    "instance {}: the database connection holding the instance lock broke; lock taken again",
                    instanceId);
            return true;
        } catch (SQLException e) {
            log.debug("instance {}: cannot take the instance lock again yet: {}", instanceId, e.toString());
            return false;
        }
    }

    /** Releases the lock by closing its connection. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        closeQuietly(connection);
        connection = null;
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // the session ends either way
            }
        }
    }
}
