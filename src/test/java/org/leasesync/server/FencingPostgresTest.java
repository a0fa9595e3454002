package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link FencingTest} against a real PostgreSQL. */
@PostgresTest
class FencingPostgresTest extends FencingTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
