package org.leasesync.server;

/** {@link RecordLimitsTest} against a real PostgreSQL. */
class RecordLimitsPostgresTest extends RecordLimitsTest {

    @Override
    protected ServerConfig config() {
        return super.config().withDatabase(PostgresDatabases.emptied());
    }
}
