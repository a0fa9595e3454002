package org.leasesync.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.leasesync.server.jobs.JobResult;
import org.leasesync.server.jobs.JobRun;
import org.leasesync.server.jobs.JobRunner;
import org.leasesync.server.jobs.JobTrigger;

/**
 * The {@code job_double_runs} counter of a cluster run: the server's own jobs (docs/reference-server.md,
 * "Jobs") must run each occurrence once across all instances, and a run must write nothing once a
 * newer lease of its job was granted. Read from the cluster's PostgreSQL ({@code job_runs}, every
 * run of every instance; {@link #read}), not from {@code GET /v1/admin/jobs}, which shows only the
 * last runs. A violation is
 * <ol>
 *   <li><b>an occurrence completed twice</b>: one {@code (job, slot)} that ended {@code ok} in more
 *       than one run (manual runs have no slot and complete no occurrence);</li>
 *   <li><b>two grants of one epoch</b>: two runs of one job with the same epoch on different
 *       instances (one instance may run several slots, or resume its own run, under one grant);</li>
 *   <li><b>a stale run writing</b>: a run of epoch {@code e} that ended {@code ok} (its last batch)
 *       or {@code failed} — both written by the run itself in a fenced transaction — later than a run
 *       of the same job with a higher epoch had started, i.e. it wrote after the newer lease was
 *       granted ({@code ended_at_ms > started_at_ms}; each stamp is taken inside its fenced
 *       transaction after the lease row is locked, and the newer run begins only after its grant,
 *       which waits for that lock: a correct history has the older run's end at or before the newer
 *       run's start). {@code interrupted} is not checked: a successor writes it.</li>
 * </ol>
 * Check (c) compares times stamped by different instances. It is sound here because every instance
 * of {@code scale/cluster.sh} runs on this one machine and reads the same wall clock (the network
 * namespaces share one kernel); on real hosts clock skew would make it report false violations (or
 * miss real ones), and a step of this machine's clock during a run could too.
 *
 * <p>The server keeps only the newest {@value JobRunner#KEEP_RUNS} runs per job. A job with that
 * many rows may have lost older ones, so its check would be partial: {@link Result#cut()} names such
 * jobs and the cluster run fails instead of under-counting (the harness picks intervals that keep
 * every job well below it, {@link ClusterJobs}). Stateless; thread-safe.
 */
final class JobRunCheck {

    private static final String COLUMNS =
            "run_id, job_name, slot, run_trigger, instance_id, owner_id, epoch, resumed_from,"
                    + " started_at_ms, ended_at_ms, result, processed, detail";

    /**
     * @param violations one per violation, with the runs that show it
     * @param note what was checked: runs per job, takeovers, recoveries, occurrences, results
     * @param cut jobs whose history may have been cut by the server's trimming (the check of those is partial)
     */
    record Result(List<ChaosReport.Violation> violations, String note, List<String> cut) {
        Result {
            violations = List.copyOf(violations);
            cut = List.copyOf(cut);
        }
    }

    private JobRunCheck() {}

    /**
     * Every row of {@code job_runs}, oldest first. Blocks on the database.
     *
     * @throws SQLException when the table cannot be read (a database without the jobs' migration
     *     included: this build has jobs, so a missing table is an error, never "no jobs")
     * @throws IllegalArgumentException when a row holds a trigger or result this build does not know
     */
    static List<JobRun> read(Connection c) throws SQLException {
        List<JobRun> runs = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM job_runs ORDER BY run_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                runs.add(new JobRun(
                        rs.getLong(1),
                        rs.getString(2),
                        longOrNull(rs, 3),
                        JobTrigger.parse(rs.getString(4)),
                        rs.getString(5),
                        rs.getString(6),
                        rs.getLong(7),
                        longOrNull(rs, 8),
                        rs.getLong(9),
                        longOrNull(rs, 10),
                        JobResult.parse(rs.getString(11)),
                        rs.getLong(12),
                        rs.getString(13)));
            }
        }
        return runs;
    }

    /** Checks a whole job-run history (any order). */
    static Result check(List<JobRun> runs) {
        List<JobRun> sorted =
                runs.stream().sorted(Comparator.comparingLong(JobRun::runId)).toList();
        List<ChaosReport.Violation> out = new ArrayList<>();
        Map<String, List<JobRun>> byJob = new TreeMap<>();
        sorted.forEach(
                r -> byJob.computeIfAbsent(r.job(), k -> new ArrayList<>()).add(r));
        byJob.values().forEach(jobRuns -> {
            completedTwice(jobRuns, out);
            oneEpochTwoInstances(jobRuns, out);
            staleWrites(jobRuns, out);
        });
        List<String> cut = new ArrayList<>();
        byJob.forEach((job, jobRuns) -> {
            if (jobRuns.size() >= JobRunner.KEEP_RUNS) {
                cut.add(job + " has " + jobRuns.size() + " runs recorded, the most the server keeps ("
                        + JobRunner.KEEP_RUNS + "): older runs may have been deleted, so its check is partial");
            }
        });
        return new Result(out, note(sorted, byJob), cut);
    }

    /** (a) One occurrence ended {@code ok} in more than one run. */
    private static void completedTwice(List<JobRun> runs, List<ChaosReport.Violation> out) {
        Map<Long, List<JobRun>> oks = new TreeMap<>();
        for (JobRun r : runs) {
            if (r.result() == JobResult.OK && r.slot() != null) {
                oks.computeIfAbsent(r.slot(), k -> new ArrayList<>()).add(r);
            }
        }
        oks.forEach((slot, done) -> {
            if (done.size() > 1) {
                out.add(new ChaosReport.Violation(
                        "job_double_runs",
                        "job " + done.get(0).job() + " occurrence (slot) " + slot + " ended ok in " + done.size()
                                + " runs",
                        lines(done)));
            }
        });
    }

    /** (b) Two runs of one epoch on different instances: two grants of one epoch. */
    private static void oneEpochTwoInstances(List<JobRun> runs, List<ChaosReport.Violation> out) {
        Map<Long, List<JobRun>> byEpoch = new TreeMap<>();
        runs.forEach(
                r -> byEpoch.computeIfAbsent(r.epoch(), k -> new ArrayList<>()).add(r));
        byEpoch.forEach((epoch, same) -> {
            Set<String> instances = new HashSet<>();
            same.forEach(r -> instances.add(r.instanceId()));
            if (instances.size() > 1) {
                out.add(new ChaosReport.Violation(
                        "job_double_runs",
                        "job " + same.get(0).job() + " ran under epoch " + epoch + " on " + instances.size()
                                + " instances (two grants of one epoch)",
                        lines(same)));
            }
        });
    }

    /** (c) A run that ended ok (or failed) after a run of a higher epoch of its job had started. */
    private static void staleWrites(List<JobRun> runs, List<ChaosReport.Violation> out) {
        for (JobRun done : runs) {
            boolean selfWritten = done.result() == JobResult.OK || done.result() == JobResult.FAILED;
            if (!selfWritten || done.endedAtMs() == null) {
                continue;
            }
            runs.stream()
                    .filter(newer -> newer.epoch() > done.epoch() && newer.startedAtMs() < done.endedAtMs())
                    .min(Comparator.comparingLong(JobRun::startedAtMs))
                    .ifPresent(newer -> out.add(new ChaosReport.Violation(
                            "job_double_runs",
                            "run " + done.runId() + " of job "
                                    + done.job() + " (epoch " + done.epoch() + ") ended "
                                    + done.result().wire() + " " + (done.endedAtMs() - newer.startedAtMs())
                                    + " ms after run " + newer.runId() + " of epoch " + newer.epoch()
                                    + " had started: it wrote after "
                                    + "a newer lease was granted",
                            lines(List.of(done, newer)))));
        }
    }

    private static String note(List<JobRun> runs, Map<String, List<JobRun>> byJob) {
        if (runs.isEmpty()) {
            return "0 server job runs checked";
        }
        Map<JobTrigger, Integer> triggers = new TreeMap<>();
        Map<JobResult, Integer> results = new TreeMap<>();
        Set<String> occurrences = new HashSet<>();
        Set<String> completed = new HashSet<>();
        for (JobRun r : runs) {
            triggers.merge(r.trigger(), 1, Integer::sum);
            results.merge(r.result(), 1, Integer::sum);
            if (r.slot() != null) {
                occurrences.add(r.job() + " " + r.slot());
                if (r.result() == JobResult.OK) {
                    completed.add(r.job() + " " + r.slot());
                }
            }
        }
        StringBuilder b = new StringBuilder().append(runs.size()).append(" server job runs checked (");
        String sep = "";
        for (Map.Entry<String, List<JobRun>> e : byJob.entrySet()) {
            long processed = e.getValue().stream()
                    .filter(r -> r.result() == JobResult.OK)
                    .mapToLong(JobRun::processed)
                    .sum();
            b.append(sep)
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue().size())
                    .append(" runs, ")
                    .append(processed)
                    .append(" rows processed");
            sep = "; ";
        }
        b.append("): ")
                .append(triggers.getOrDefault(JobTrigger.TAKEOVER, 0))
                .append(" takeovers, ")
                .append(triggers.getOrDefault(JobTrigger.RECOVERY, 0))
                .append(" recoveries, ")
                .append(occurrences.size())
                .append(" occurrences (")
                .append(completed.size())
                .append(" completed); results");
        results.forEach(
                (result, n) -> b.append(' ').append(result.wire()).append('=').append(n));
        b.append("; at most ")
                .append(byJob.values().stream().mapToInt(List::size).max().orElse(0))
                .append(" of ")
                .append(JobRunner.KEEP_RUNS)
                .append(" runs kept per job");
        return b.toString();
    }

    private static List<String> lines(List<JobRun> runs) {
        return runs.stream().map(JobRunCheck::describe).toList();
    }

    /** One run as evidence: every column but the detail's length limit. */
    static String describe(JobRun r) {
        return "run " + r.runId() + " " + r.job() + " slot " + r.slot() + " "
                + r.trigger().wire()
                + (r.resumedFrom() == null ? "" : " (resumed run " + r.resumedFrom() + ")") + " epoch " + r.epoch()
                + " on " + r.instanceId() + " [" + r.startedAtMs() + ", "
                + (r.endedAtMs() == null ? "…" : r.endedAtMs())
                + "] " + r.result().wire() + " processed " + r.processed()
                + (r.detail() == null ? "" : " — " + r.detail());
    }

    private static Long longOrNull(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
