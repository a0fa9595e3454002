package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;

/** {@link JobSchedulerContract} on a real PostgreSQL. */
class JobSchedulerPostgresTest extends JobSchedulerContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
