package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link PullTest} against a real PostgreSQL. */
@PostgresTest
class PullPostgresTest extends PullTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
