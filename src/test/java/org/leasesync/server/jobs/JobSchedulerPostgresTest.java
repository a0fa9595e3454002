package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;
import org.leasesync.testing.PostgresTest;

/** {@link JobSchedulerContract} on a real PostgreSQL. */
@PostgresTest
class JobSchedulerPostgresTest extends JobSchedulerContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
