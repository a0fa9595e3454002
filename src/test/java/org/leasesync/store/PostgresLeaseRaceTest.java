package org.leasesync.store;

import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** The lease races on a real PostgreSQL: many threads, one pool, the same few keys. */
@PostgresTest
class PostgresLeaseRaceTest extends LeaseRaceTest {
    @Override
    LocalStore open() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(
                Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 8));
    }
}
