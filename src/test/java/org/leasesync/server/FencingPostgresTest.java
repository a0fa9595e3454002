package org.leasesync.server;

/** {@link FencingTest} against a real PostgreSQL. */
class FencingPostgresTest extends FencingTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
