package org.leasesync.server;

/** {@link AuditTest} against a real PostgreSQL. */
class AuditPostgresTest extends AuditTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
