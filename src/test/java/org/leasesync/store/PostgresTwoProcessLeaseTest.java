package org.leasesync.store;

import java.util.Map;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;

/** Two real JVMs sharing one PostgreSQL database (as several server instances do) share one registry. */
@ProcessTest
@PostgresTest
class PostgresTwoProcessLeaseTest extends TwoProcessLeaseTest {

    private Postgres.Db db;

    @Override
    String target() {
        db = Postgres.newDatabase();
        return db.jdbcUrl();
    }

    @Override
    Map<String, String> childEnv() {
        return db.env();
    }
}
