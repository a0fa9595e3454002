package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link TombstonePurgeTest} on a real PostgreSQL. */
@PostgresTest
class TombstonePurgePostgresTest extends TombstonePurgeTest {
    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
