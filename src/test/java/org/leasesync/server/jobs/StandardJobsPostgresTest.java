package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;

/** {@link StandardJobsContract} on a real PostgreSQL. */
class StandardJobsPostgresTest extends StandardJobsContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
