package org.leasesync.store;

import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** {@link RecordLocksTest} on a real PostgreSQL client store. */
@PostgresTest
class RecordLocksPostgresTest extends RecordLocksTest {
    @Override
    Database openDatabase() {
        Postgres.Db pg = Postgres.newDatabase();
        return LocalStore.of(
                        Database.open(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + pg.name(), 4))
                .database();
    }
}
