package org.leasesync.store;

import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** {@link ConflictCopiesTest} on a real PostgreSQL, with the schema from {@code db/migration-postgresql}. */
@PostgresTest
class PostgresConflictCopiesTest extends ConflictCopiesTest {
    @Override
    LocalStore openStore() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(
                Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
    }
}
