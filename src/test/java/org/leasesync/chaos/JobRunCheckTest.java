package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.leasesync.server.jobs.JobResult;
import org.leasesync.server.jobs.JobRun;
import org.leasesync.server.jobs.JobRunner;
import org.leasesync.server.jobs.JobTrigger;
import org.leasesync.server.store.Dialect;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * job_double_runs on the server's real job-run history: an occurrence completed twice, two grants
 * of one epoch, a stale run writing after a newer lease — and the takeovers, recoveries and
 * interruptions of a healthy cluster that are none of these.
 */
@PostgresTest
class JobRunCheckTest {

    private static final String S1 = "ls-s1/101/a";
    private static final String S2 = "ls-s2/202/b";
    private static final String S3 = "ls-s3/303/c";
    private static final String EXPIRE = "expire-idempotency-keys";
    private static final String PURGE = "purge-tombstones";

    private long nextId = 1;

    @Test
    void aHealthyHistoryWithTakeoversRecoveriesAndInterruptionsIsClean() {
        List<JobRun> runs = List.of(
                // instance 1 runs slot 10 and, still holding epoch 1, slot 11
                run(EXPIRE, 10L, JobTrigger.SCHEDULE, S1, 1, null, 1_000, 1_010L, JobResult.OK),
                run(EXPIRE, 11L, JobTrigger.SCHEDULE, S1, 1, null, 5_000, 5_010L, JobResult.OK),
                // instance 2 starts slot 12 under epoch 2 and dies mid-run; instance 3 takes it over
                // under epoch 3: the dead run is marked interrupted when the takeover begins
                run(EXPIRE, 12L, JobTrigger.SCHEDULE, S2, 2, null, 9_000, 11_500L, JobResult.INTERRUPTED),
                run(EXPIRE, 12L, JobTrigger.TAKEOVER, S3, 3, 3L, 11_500, 11_520L, JobResult.OK),
                // instance 1 fails slot 13 (database gone) and recovers its own run under a new grant
                run(EXPIRE, 13L, JobTrigger.SCHEDULE, S1, 4, null, 13_000, 13_050L, JobResult.FAILED),
                run(EXPIRE, 13L, JobTrigger.RECOVERY, S1, 5, 5L, 23_050, 23_060L, JobResult.OK),
                // the older run's final write in the same millisecond as the newer run's start is in order
                run(EXPIRE, 14L, JobTrigger.SCHEDULE, S2, 6, null, 24_000, 24_100L, JobResult.OK),
                run(EXPIRE, 15L, JobTrigger.SCHEDULE, S3, 7, null, 24_100, 24_110L, JobResult.OK),
                // manual runs complete no occurrence; a stopped instance leaves its run interrupted
                run(EXPIRE, null, JobTrigger.MANUAL, S2, 8, null, 25_000, 25_010L, JobResult.OK),
                run(EXPIRE, null, JobTrigger.MANUAL, S3, 9, null, 26_000, 26_010L, JobResult.OK),
                run(EXPIRE, 16L, JobTrigger.SCHEDULE, S1, 10, null, 27_000, null, JobResult.RUNNING),
                // another job's epochs are its own: epoch 1 again, on another instance
                run(PURGE, 5L, JobTrigger.SCHEDULE, S2, 1, null, 1_000, 1_020L, JobResult.OK));

        JobRunCheck.Result r = JobRunCheck.check(runs);

        assertThat(r.violations()).isEmpty();
        assertThat(r.cut()).isEmpty();
        assertThat(r.note())
                .isEqualTo("12 server job runs checked (expire-idempotency-keys 11 runs, 0 rows processed;"
                        + " purge-tombstones 1 runs, 0 rows processed): 1 takeovers, 1 recoveries, 8 occurrences (7 completed);"
                        + " results running=1 ok=9 failed=1 interrupted=1; at most 11 of 100 runs kept per job");
    }

    @Test
    void anOccurrenceThatEndedOkInTwoRunsIsADoubleRun() {
        List<JobRun> runs = List.of(
                run(PURGE, 7L, JobTrigger.SCHEDULE, S1, 3, null, 1_000, 1_050L, JobResult.OK),
                run(PURGE, 7L, JobTrigger.SCHEDULE, S2, 4, null, 2_000, 2_050L, JobResult.OK),
                run(PURGE, 8L, JobTrigger.SCHEDULE, S2, 5, null, 3_000, 3_050L, JobResult.OK));

        List<ChaosReport.Violation> v = JobRunCheck.check(runs).violations();

        assertThat(v).hasSize(1);
        assertThat(v.get(0).counter()).isEqualTo("job_double_runs");
        assertThat(v.get(0).what()).isEqualTo("job purge-tombstones occurrence (slot) 7 ended ok in 2 runs");
        assertThat(v.get(0).history())
                .hasSize(2)
                .allMatch(l -> l.contains("slot 7"))
                .anyMatch(l -> l.contains(S2));
    }

    @Test
    void aTakeoverThatCompletesAnOccurrenceItsPredecessorAlsoCompletedIsADoubleRun() {
        List<JobRun> runs = List.of(
                run(EXPIRE, 7L, JobTrigger.SCHEDULE, S1, 3, null, 1_000, 1_050L, JobResult.OK),
                run(EXPIRE, 7L, JobTrigger.TAKEOVER, S2, 4, 1L, 1_060, 1_070L, JobResult.OK));
        assertThat(JobRunCheck.check(runs).violations())
                .extracting(ChaosReport.Violation::what)
                .containsExactly("job expire-idempotency-keys occurrence (slot) 7 ended ok in 2 runs");
    }

    @Test
    void twoRunsOfOneEpochOnDifferentInstancesAreTwoGrantsOfOneEpoch() {
        List<JobRun> runs = List.of(
                run(EXPIRE, 20L, JobTrigger.SCHEDULE, S1, 9, null, 1_000, 1_050L, JobResult.OK),
                run(EXPIRE, 21L, JobTrigger.SCHEDULE, S2, 9, null, 5_000, 5_050L, JobResult.OK));

        List<ChaosReport.Violation> v = JobRunCheck.check(runs).violations();

        assertThat(v)
                .extracting(ChaosReport.Violation::what)
                .containsExactly(
                        "job expire-idempotency-keys ran under epoch 9 on 2 instances (two grants of one epoch)");
        assertThat(v.get(0).history()).anyMatch(l -> l.contains(S1)).anyMatch(l -> l.contains(S2));
    }

    @Test
    void aRunThatEndedOkAfterANewerEpochStartedWroteAfterItsLeaseWasTakenOver() {
        List<JobRun> runs = List.of(
                run(PURGE, 30L, JobTrigger.SCHEDULE, S1, 4, null, 1_000, 4_500L, JobResult.OK),
                run(PURGE, 30L, JobTrigger.TAKEOVER, S2, 5, 1L, 4_000, null, JobResult.RUNNING));

        List<ChaosReport.Violation> v = JobRunCheck.check(runs).violations();

        assertThat(v)
                .extracting(ChaosReport.Violation::what)
                .containsExactly("run 1 of job purge-tombstones (epoch 4) ended ok"
                        + " 500 ms after run 2 of epoch 5 had started: it wrote after a newer lease was granted");
        assertThat(v.get(0).history()).hasSize(2);
    }

    @Test
    void aFailedRunIsItsOwnFencedWriteTooButAnInterruptedOneIsWrittenByItsSuccessor() {
        List<JobRun> failedLate = List.of(
                run(PURGE, 30L, JobTrigger.SCHEDULE, S1, 4, null, 1_000, 4_001L, JobResult.FAILED),
                run(PURGE, 31L, JobTrigger.SCHEDULE, S2, 5, null, 4_000, 4_010L, JobResult.OK));
        assertThat(JobRunCheck.check(failedLate).violations())
                .extracting(ChaosReport.Violation::what)
                .containsExactly(
                        "run 1 of job purge-tombstones (epoch 4) ended failed 1 ms after run 2 of epoch 5 had started:"
                                + " it wrote after a newer lease was granted");
        nextId = 1;
        List<JobRun> interrupted = List.of(
                run(PURGE, 30L, JobTrigger.SCHEDULE, S1, 4, null, 1_000, 9_000L, JobResult.INTERRUPTED),
                run(PURGE, 30L, JobTrigger.TAKEOVER, S2, 5, 1L, 9_000, 9_010L, JobResult.OK));
        assertThat(JobRunCheck.check(interrupted).violations()).isEmpty();
    }

    @Test
    void aJobWithAsManyRunsAsTheServerKeepsMayHaveLostSomeAndSaysSo() {
        List<JobRun> runs = new ArrayList<>();
        for (int i = 0; i < JobRunner.KEEP_RUNS; i++) {
            runs.add(run(
                    EXPIRE, (long) i, JobTrigger.SCHEDULE, S1, i + 1, null, i * 1_000L, i * 1_000L + 5, JobResult.OK));
        }
        for (int i = 0; i < JobRunner.KEEP_RUNS - 1; i++) {
            runs.add(run(
                    PURGE, (long) i, JobTrigger.SCHEDULE, S2, i + 1, null, i * 1_000L, i * 1_000L + 5, JobResult.OK));
        }

        JobRunCheck.Result r = JobRunCheck.check(runs);

        assertThat(r.violations()).isEmpty();
        assertThat(r.cut())
                .containsExactly("expire-idempotency-keys has 100 runs recorded, the most the server keeps (100):"
                        + " older runs may have been deleted, so its check is partial");
        assertThat(r.note()).endsWith("at most 100 of 100 runs kept per job");
    }

    @Test
    void readsEveryRunFromTheServersRealTableOnPostgresql() throws SQLException {
        Postgres.Db pg = Postgres.newDatabase();
        Flyway.configure()
                .dataSource(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)
                .locations(Dialect.POSTGRESQL.migrations())
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)) {
            String insert =
                    "INSERT INTO job_runs (job_name, slot, run_trigger, instance_id, owner_id, epoch, resumed_from,"
                            + " started_at_ms, ended_at_ms, result, processed, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                Object[][] rows = {
                    {
                        PURGE,
                        41L,
                        "schedule",
                        S1,
                        "o1",
                        6L,
                        null,
                        1_000L,
                        1_500L,
                        "interrupted",
                        3L,
                        "taken over by instance " + S2
                    },
                    {PURGE, 41L, "takeover", S2, "o2", 7L, 1L, 1_500L, null, "running", 3L, null},
                    {EXPIRE, null, "manual", S3, "o3", 2L, null, 2_000L, 2_004L, "ok", 12L, null},
                };
                for (Object[] row : rows) {
                    for (int i = 0; i < row.length; i++) {
                        ps.setObject(i + 1, row[i]);
                    }
                    ps.executeUpdate();
                }
            }

            List<JobRun> runs = JobRunCheck.read(c);

            assertThat(runs)
                    .containsExactly(
                            new JobRun(
                                    1,
                                    PURGE,
                                    41L,
                                    JobTrigger.SCHEDULE,
                                    S1,
                                    "o1",
                                    6,
                                    null,
                                    1_000,
                                    1_500L,
                                    JobResult.INTERRUPTED,
                                    3,
                                    "taken over by instance " + S2),
                            new JobRun(
                                    2,
                                    PURGE,
                                    41L,
                                    JobTrigger.TAKEOVER,
                                    S2,
                                    "o2",
                                    7,
                                    1L,
                                    1_500,
                                    null,
                                    JobResult.RUNNING,
                                    3,
                                    null),
                            new JobRun(
                                    3,
                                    EXPIRE,
                                    null,
                                    JobTrigger.MANUAL,
                                    S3,
                                    "o3",
                                    2,
                                    null,
                                    2_000,
                                    2_004L,
                                    JobResult.OK,
                                    12,
                                    null));
            assertThat(JobRunCheck.check(runs).violations()).isEmpty();
        }
    }

    @Test
    void aDatabaseWithoutTheJobTablesIsAnErrorNotAnEmptyHistory() throws SQLException {
        Postgres.Db pg = Postgres.newDatabase();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)) {
            assertThatThrownBy(() -> JobRunCheck.read(c))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("job_runs");
        }
    }

    private JobRun run(
            String job,
            Long slot,
            JobTrigger trigger,
            String instance,
            long epoch,
            Long resumedFrom,
            long startedAtMs,
            Long endedAtMs,
            JobResult result) {
        return new JobRun(
                nextId++,
                job,
                slot,
                trigger,
                instance,
                "owner-of-" + instance,
                epoch,
                resumedFrom,
                startedAtMs,
                endedAtMs,
                result,
                0,
                null);
    }
}
