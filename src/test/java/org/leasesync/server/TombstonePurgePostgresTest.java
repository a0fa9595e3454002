package org.leasesync.server;

/** {@link TombstonePurgeTest} on a real PostgreSQL. */
class TombstonePurgePostgresTest extends TombstonePurgeTest {
    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
