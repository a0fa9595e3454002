package org.leasesync.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outcome of a chaos run: what was injected, the violations found, and the takeover times.
 *
 * @param counts rounds, kills, faults and runs
 * @param violations every violation, each with the history that shows it
 * @param takeoverMillis for each key whose owner was killed: milliseconds until a successor held it
 */
record ChaosReport(Counts counts, List<Violation> violations, List<Long> takeoverMillis) {

    /** The counter names of the summary line, in order. */
    static final List<String> COUNTERS = List.of("overlaps", "duplicates", "lost", "stuck", "cross_user", "stolen");

    ChaosReport {
        violations = List.copyOf(violations);
        takeoverMillis = List.copyOf(takeoverMillis);
    }

    /** What the harness did. */
    record Counts(int rounds, int kills, int faults, int runs) {
        Counts withRuns(int r) {
            return new Counts(rounds, kills, faults, r);
        }
    }

    /** One broken promise: its counter, what happened, and the events that show it. */
    record Violation(String counter, String what, List<String> history) {
        Violation {
            history = List.copyOf(history);
        }
    }

    /** This report with {@code more} violations added (found outside the checker, e.g. a directory that no longer opens). */
    ChaosReport withViolations(List<Violation> more) {
        List<Violation> all = new ArrayList<>(violations);
        all.addAll(more);
        return new ChaosReport(counts, all, takeoverMillis);
    }

    /** Violations per counter (every counter present, zero when none). */
    Map<String, Integer> perCounter() {
        Map<String, Integer> m = new TreeMap<>();
        COUNTERS.forEach(c -> m.put(c, 0));
        violations.forEach(v -> m.merge(v.counter(), 1, Integer::sum));
        return m;
    }

    boolean passed() {
        return violations.isEmpty();
    }

    /** {@code rounds=N kills=K faults=F runs=R overlaps=0 duplicates=0 lost=0 stuck=0 cross_user=0 stolen=0}. */
    String summaryLine() {
        StringBuilder b = new StringBuilder();
        b.append("rounds=")
                .append(counts.rounds())
                .append(" kills=")
                .append(counts.kills())
                .append(" faults=")
                .append(counts.faults())
                .append(" runs=")
                .append(counts.runs());
        Map<String, Integer> per = perCounter();
        for (String c : COUNTERS) {
            b.append(' ').append(c).append('=').append(per.get(c));
        }
        return b.toString();
    }

    /** Takeover time after kills: count, median and maximum in ms. */
    String takeoverLine() {
        if (takeoverMillis.isEmpty()) {
            return "takeovers=0";
        }
        List<Long> sorted = new ArrayList<>(takeoverMillis);
        sorted.sort(null);
        return "takeovers=" + sorted.size() + " takeover_p50_ms=" + sorted.get(sorted.size() / 2) + " takeover_max_ms="
                + sorted.get(sorted.size() - 1);
    }
}
