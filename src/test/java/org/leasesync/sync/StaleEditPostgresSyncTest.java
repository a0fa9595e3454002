package org.leasesync.sync;

import org.leasesync.store.Database;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/** {@link StaleEditSyncTest} with the client's local store on a real PostgreSQL. */
@PostgresTest
class StaleEditPostgresSyncTest extends StaleEditSyncTest {
    @Override
    LocalStore openStore() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(
                Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
    }
}
