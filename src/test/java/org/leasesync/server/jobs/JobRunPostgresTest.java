package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;
import org.leasesync.testing.PostgresTest;

/** {@link JobRunContract} on a real PostgreSQL. */
@PostgresTest
class JobRunPostgresTest extends JobRunContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
