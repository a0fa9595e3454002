package org.leasesync.server;

/** {@link PullTest} against a real PostgreSQL. */
class PullPostgresTest extends PullTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
