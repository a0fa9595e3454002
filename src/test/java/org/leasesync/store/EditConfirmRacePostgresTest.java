package org.leasesync.store;

import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** {@link EditConfirmRaceTest} on a real PostgreSQL client store. */
@PostgresTest
class EditConfirmRacePostgresTest extends EditConfirmRaceTest {
    @Override
    LocalStore openStore() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(
                Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
    }

    @Override
    int rounds() {
        return 200;
    }
}
