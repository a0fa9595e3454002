package org.leasesync.server;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** In-memory counters behind {@link ServerStats}. Thread-safe; never blocks for long. */
final class StatsRecorder {

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong pushes = new AtomicLong();
    private final AtomicLong changesApplied = new AtomicLong();
    private final ConcurrentHashMap<String, AtomicInteger> appliedByChangeId = new ConcurrentHashMap<>();
    private final RunTracker runs = new RunTracker();

    void request() {
        requests.incrementAndGet();
    }

    void push() {
        pushes.incrementAndGet();
    }

    void applied(List<String> changeIds) {
        changesApplied.addAndGet(changeIds.size());
        for (String id : changeIds) {
            appliedByChangeId.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    RunTracker runs() {
        return runs;
    }

    ServerStats snapshot() {
        Map<String, Integer> applied = new TreeMap<>();
        appliedByChangeId.forEach((k, v) -> applied.put(k, v.get()));
        return new ServerStats(requests.get(), pushes.get(), changesApplied.get(), applied, runs.overlaps());
    }

    void reset() {
        requests.set(0);
        pushes.set(0);
        changesApplied.set(0);
        appliedByChangeId.clear();
        runs.reset();
    }
}
