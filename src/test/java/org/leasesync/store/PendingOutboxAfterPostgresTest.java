package org.leasesync.store;

import org.leasesync.testing.Postgres;

/** {@link PendingOutboxAfterTest} on a real PostgreSQL client store. */
class PendingOutboxAfterPostgresTest extends PendingOutboxAfterTest {
    @Override
    LocalStore openStore() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
    }
}
