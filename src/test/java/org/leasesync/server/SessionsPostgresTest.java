package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link SessionsTest} against a real PostgreSQL. */
@PostgresTest
class SessionsPostgresTest extends SessionsTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
