package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;

/** {@link StandardJobsContract} on H2 (in memory). */
class StandardJobsH2Test extends StandardJobsContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
