package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;
import org.leasesync.testing.PostgresTest;

/** {@link StandardJobsContract} on a real PostgreSQL. */
@PostgresTest
class StandardJobsPostgresTest extends StandardJobsContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
