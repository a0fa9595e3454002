package org.leasesync.store;

import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * The registry contract on a real PostgreSQL (a fresh database per test): the same code as on H2,
 * with the schema from {@code db/migration-postgresql}; only {@link SqlDialect} differs.
 */
@PostgresTest
class PostgresRegistryContractTest extends RegistryContractTest {
    @Override
    LocalStore open() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(
                Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
    }
}
