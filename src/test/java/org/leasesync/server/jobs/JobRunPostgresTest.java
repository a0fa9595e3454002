package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;

/** {@link JobRunContract} on a real PostgreSQL. */
class JobRunPostgresTest extends JobRunContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
