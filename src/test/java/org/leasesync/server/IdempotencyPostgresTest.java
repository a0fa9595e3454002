package org.leasesync.server;

import org.leasesync.testing.PostgresTest;

/** {@link IdempotencyTest} against a real PostgreSQL. */
@PostgresTest
class IdempotencyPostgresTest extends IdempotencyTest {

    @Override
    protected ServerConfig onDatabase(ServerConfig cfg) {
        return cfg.withDatabase(PostgresDatabases.emptied());
    }
}
