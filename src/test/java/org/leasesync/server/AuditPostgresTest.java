package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link AuditTest} against a real PostgreSQL. */
@PostgresTest
class AuditPostgresTest extends AuditTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
