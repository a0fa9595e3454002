package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;

/** {@link JobSchedulerContract} on H2 (in memory). */
class JobSchedulerH2Test extends JobSchedulerContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
