package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The outcome of a cluster run ({@code scale/cluster.sh}): what was injected, and the violations
 * the checks found — the chaos {@link Checker}'s local overlaps, duplicates and lost edits, its
 * server-side fencing check counted as {@code fencing_violations}, and {@link JobRunCheck}.
 *
 * @param counts instances, rounds, kills and partitions
 * @param violations every violation, each with the evidence that shows it
 * @param jobNote what the job check saw (e.g. {@link JobRunCheck#NO_JOBS})
 * @param unsettled keys the drain could not settle (their last run failed or their outbox still held
 *     sendable edits after 60 s of retries): the checks then see an unfinished history, so the run fails
 */
record ClusterReport(Counts counts, List<ChaosReport.Violation> violations, String jobNote, List<String> unsettled) {

    /** The counter names of the summary line, in order. */
    static final List<String> COUNTERS = List.of("duplicates", "lost", "overlaps", "fencing_violations", "job_double_runs");

    ClusterReport {
        violations = List.copyOf(violations);
        unsettled = List.copyOf(unsettled);
    }

    /** What the harness did. */
    record Counts(int instances, int rounds, int kills, int partitions) {
    }

    /**
     * Runs every check of a cluster run.
     *
     * @param ev the journals, the server's audit and every device's database
     * @param jobsAnswer the answer of {@code GET /v1/admin/jobs}; empty when the endpoint does not exist
     * @param unsettled what the drain could not settle
     */
    static ClusterReport check(Evidence ev, Optional<JsonNode> jobsAnswer, Counts counts, List<String> unsettled) {
        List<ChaosReport.Violation> v = new ArrayList<>();
        Checker.duplicates(ev, v);
        Checker.lost(ev, v);
        Checker.localOverlaps(ev, v);
        Checker.serverFencing(ev, "fencing_violations", v);
        JobRunCheck.Result jobs = JobRunCheck.check(jobsAnswer);
        v.addAll(jobs.violations());
        return new ClusterReport(counts, v, jobs.note(), unsettled);
    }

    /** Violations per counter (every counter present, zero when none). */
    Map<String, Integer> perCounter() {
        Map<String, Integer> m = new TreeMap<>();
        COUNTERS.forEach(c -> m.put(c, 0));
        violations.forEach(x -> m.merge(x.counter(), 1, Integer::sum));
        return m;
    }

    /** No violation, and the drain settled every key. */
    boolean passed() {
        return violations.isEmpty() && unsettled.isEmpty();
    }

    /** {@code instances=3 rounds=N kills=K partitions=P duplicates=0 lost=0 overlaps=0 fencing_violations=0 job_double_runs=0}. */
    String summaryLine() {
        StringBuilder b = new StringBuilder();
        b.append("instances=").append(counts.instances()).append(" rounds=").append(counts.rounds())
                .append(" kills=").append(counts.kills()).append(" partitions=").append(counts.partitions());
        Map<String, Integer> per = perCounter();
        for (String c : COUNTERS) {
            b.append(' ').append(c).append('=').append(per.get(c));
        }
        return b.toString();
    }
}
