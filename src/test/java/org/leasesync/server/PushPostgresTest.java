package org.leasesync.server;

/** {@link PushTest} against a real PostgreSQL. */
class PushPostgresTest extends PushTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
