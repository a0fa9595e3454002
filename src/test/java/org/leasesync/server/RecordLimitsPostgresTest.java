package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link RecordLimitsTest} against a real PostgreSQL. */
@PostgresTest
class RecordLimitsPostgresTest extends RecordLimitsTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
