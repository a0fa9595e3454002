package org.leasesync.server;

/** {@link IdempotencyTest} against a real PostgreSQL. */
class IdempotencyPostgresTest extends IdempotencyTest {

    @Override
    protected ServerConfig onDatabase(ServerConfig cfg) {
        return cfg.withDatabase(PostgresDatabases.emptied());
    }
}
