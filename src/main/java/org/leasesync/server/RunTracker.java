package org.leasesync.server;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per user+scope and {@code Sync-Run-Id}: the interval from the arrival of the run's first request
 * to the completion of its last. Counts pairs of different runs of one user+scope whose intervals
 * overlap (touching endpoints do not count).
 *
 * <p>Thread-safe (synchronised); never blocks for long.
 */
final class RunTracker {

    private record Interval(Instant start, Instant end) {
        Interval widen(Instant s, Instant e) {
            return new Interval(s.isBefore(start) ? s : start, e.isAfter(end) ? e : end);
        }

        boolean overlaps(Interval o) {
            return start.isBefore(o.end) && o.start.isBefore(end);
        }
    }

    private final Map<String, Map<String, Interval>> runsByTaskKey = new HashMap<>();

    /** Records one completed request of a run. */
    synchronized void record(String user, String scope, String runId, Instant arrival, Instant completion) {
        Map<String, Interval> runs = runsByTaskKey.computeIfAbsent(user + "|" + scope, k -> new HashMap<>());
        Interval i = new Interval(arrival, completion.isBefore(arrival) ? arrival : completion);
        runs.merge(runId, i, (old, neu) -> old.widen(neu.start(), neu.end()));
    }

    /** Number of overlapping pairs of different runs, over all user+scopes. */
    synchronized long overlaps() {
        long count = 0;
        for (Map<String, Interval> runs : runsByTaskKey.values()) {
            List<Interval> list = new ArrayList<>(runs.values());
            for (int a = 0; a < list.size(); a++) {
                for (int b = a + 1; b < list.size(); b++) {
                    if (list.get(a).overlaps(list.get(b))) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    synchronized void reset() {
        runsByTaskKey.clear();
    }
}
