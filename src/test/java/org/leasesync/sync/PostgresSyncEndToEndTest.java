package org.leasesync.sync;

import org.leasesync.store.Database;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * The end-to-end sync suite with the client's local store on a real PostgreSQL (a fresh database
 * per store): local records, outbox, checkpoints and runs through the same SQL as on H2, with the
 * schema from {@code db/migration-postgresql}.
 */
@PostgresTest
class PostgresSyncEndToEndTest extends SyncEndToEndTest {
    @Override
    LocalStore openStore() {
        Postgres.Db db = Postgres.newDatabase();
        return LocalStore.of(
                Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
    }
}
