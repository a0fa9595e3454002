package org.leasesync.server.jobs;

import org.leasesync.store.SqlDialect;

/** {@link JobRunContract} on H2 (in memory). */
class JobRunH2Test extends JobRunContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
