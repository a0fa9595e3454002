package org.leasesync.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.leasesync.server.jobs.JobRun;

/**
 * The outcome of a cluster run ({@code scale/cluster.sh}): what was injected, and the violations
 * the checks found — the chaos {@link Checker}'s local overlaps, duplicates and lost edits, its
 * server-side fencing check counted as {@code fencing_violations}, and {@link JobRunCheck} on every
 * server job run.
 *
 * @param counts instances, rounds, kills and partitions
 * @param violations every violation, each with the evidence that shows it
 * @param jobNote what the job check saw (runs, takeovers, recoveries, occurrences)
 * @param unsettled keys the drain could not settle (their last run failed or their outbox still held
 *     sendable edits after 60 s of retries): the checks then see an unfinished history, so the run fails
 * @param jobHistoryGaps why the job check could not see every job run (the server trimmed a job's
 *     history, or no job ran at all): a partial check must not pass as a clean one, so the run fails
 */
record ClusterReport(
        Counts counts,
        List<ChaosReport.Violation> violations,
        String jobNote,
        List<String> unsettled,
        List<String> jobHistoryGaps) {

    /** The counter names of the summary line, in order. */
    static final List<String> COUNTERS =
            List.of("duplicates", "lost", "overlaps", "fencing_violations", "job_double_runs");

    ClusterReport {
        violations = List.copyOf(violations);
        unsettled = List.copyOf(unsettled);
        jobHistoryGaps = List.copyOf(jobHistoryGaps);
    }

    /** What the harness did. */
    record Counts(int instances, int rounds, int kills, int partitions) {}

    /**
     * Runs every check of a cluster run.
     *
     * @param ev the journals, the server's audit and every device's database
     * @param jobRuns every row of the cluster's {@code job_runs} ({@link JobRunCheck#read})
     * @param unsettled what the drain could not settle
     */
    static ClusterReport check(Evidence ev, List<JobRun> jobRuns, Counts counts, List<String> unsettled) {
        List<ChaosReport.Violation> v = new ArrayList<>();
        Checker.duplicates(ev, v);
        Checker.lost(ev, v);
        Checker.localOverlaps(ev, v);
        Checker.serverFencing(ev, "fencing_violations", v);
        JobRunCheck.Result jobs = JobRunCheck.check(jobRuns);
        v.addAll(jobs.violations());
        List<String> gaps = new ArrayList<>(jobs.cut());
        if (jobRuns.isEmpty()) {
            gaps.add("no server job run was recorded: the job check checked nothing");
        }
        return new ClusterReport(counts, v, jobs.note(), unsettled, gaps);
    }

    /** Violations per counter (every counter present, zero when none). */
    Map<String, Integer> perCounter() {
        Map<String, Integer> m = new TreeMap<>();
        COUNTERS.forEach(c -> m.put(c, 0));
        violations.forEach(x -> m.merge(x.counter(), 1, Integer::sum));
        return m;
    }

    /** No violation, the drain settled every key, and the job check saw every job run. */
    boolean passed() {
        return violations.isEmpty() && unsettled.isEmpty() && jobHistoryGaps.isEmpty();
    }

    /** {@code instances=3 rounds=N kills=K partitions=P duplicates=0 lost=0 overlaps=0 fencing_violations=0 job_double_runs=0}. */
    String summaryLine() {
        StringBuilder b = new StringBuilder();
        b.append("instances=")
                .append(counts.instances())
                .append(" rounds=")
                .append(counts.rounds())
                .append(" kills=")
                .append(counts.kills())
                .append(" partitions=")
                .append(counts.partitions());
        Map<String, Integer> per = perCounter();
        for (String c : COUNTERS) {
            b.append(' ').append(c).append('=').append(per.get(c));
        }
        return b.toString();
    }
}
