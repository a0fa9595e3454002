package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link PushTest} against a real PostgreSQL. */
@PostgresTest
class PushPostgresTest extends PushTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
