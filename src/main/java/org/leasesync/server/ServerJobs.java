package org.leasesync.server;

import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TimeSource;
import org.leasesync.server.http.ServerMetrics;
import org.leasesync.server.jobs.JobHooks;
import org.leasesync.server.jobs.JobScheduler;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.store.DataSourceDatabase;

/**
 * Wires the server's jobs ({@link StandardJobs}) to a {@link JobScheduler} on this instance: the
 * task registry over the server's own pool and schema ({@link DataSourceDatabase}), this instance's
 * lease owner id (unique per {@link ReferenceServer}, so several in one process are several
 * owners), the process table as proof of a dead owner on this machine, and the server's clock.
 * Stateless.
 */
final class ServerJobs {

    private ServerJobs() {}

    /** A scheduler for this instance, not started yet, whose finished runs go to {@code metrics}. Does not touch the database. */
    static JobScheduler create(ServerConfig cfg, ServerDatabase db, ServerMetrics metrics) {
        DataSourceDatabase sql = new DataSourceDatabase(db.dataSource(), db.sqlDialect(), db.description());
        JobScheduler scheduler = new JobScheduler(
                        sql,
                        StandardJobs.create(
                                cfg.keyRetention(),
                                cfg.jobs(),
                                db.instanceId(),
                                (c, other) -> db.dialect().isOtherInstanceAlive(c, other)),
                        cfg.jobs(),
                        db.instanceId(),
                        OwnerId.forCurrentProcess(),
                        TimeSource.system(cfg.clock()),
                        OwnerLiveness.processTable(OwnerId.localMachine()),
                        JobHooks.NONE)
                .onFinishedRuns(r -> metrics.jobRun(r.job(), r.result(), java.time.Duration.ofMillis(r.tookMillis())));
        // an H2 database belongs to one server process: nothing but this instance makes a job due
        return db.dialect() == org.leasesync.server.store.Dialect.H2 ? scheduler.soleInstance() : scheduler;
    }
}
