package org.leasesync.server.jobs;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Whether another server instance, by its instance id, is alive, judged through a connection of the
 * caller's transaction (on PostgreSQL: whether its session still holds its instance advisory lock;
 * on H2 never, a database there has one server). Implemented by the server; thread-safe.
 */
@FunctionalInterface
public interface InstanceLiveness {

    /**
     * @param instanceId another instance's id (never this instance's)
     * @return true while that instance is alive; false when it is gone
     * @throws SQLException if the probe fails
     */
    boolean isAlive(Connection c, String instanceId) throws SQLException;
}
