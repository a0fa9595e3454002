package org.leasesync.server;

/** {@link SessionsTest} against a real PostgreSQL. */
class SessionsPostgresTest extends SessionsTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
