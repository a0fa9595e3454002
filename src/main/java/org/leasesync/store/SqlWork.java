package org.leasesync.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Work done inside one local transaction. */
@FunctionalInterface
public interface SqlWork<T> {
    T apply(Connection connection) throws SQLException;
}
