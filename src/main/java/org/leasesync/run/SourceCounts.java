package org.leasesync.run;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Triggers counted per source, in the order each source first arrived: how a run's merged triggers
 * are shown ("schedule × 12, foreground × 3, manual × 1") instead of one name per trigger, which for
 * a long run can be hundreds. Immutable.
 *
 * @param counts count per source ({@code >= 1} each), in first-arrival order
 */
public record SourceCounts(Map<TaskSource, Integer> counts) {

    public SourceCounts {
        for (Map.Entry<TaskSource, Integer> e : counts.entrySet()) {
            if (e.getKey() == null || e.getValue() == null || e.getValue() < 1) {
                throw new IllegalArgumentException("a source count must be a source with a count >= 1, got " + e);
            }
        }
        counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
    }

    /** Counts {@code sources}, keeping the order in which each source first appears. */
    public static SourceCounts of(List<TaskSource> sources) {
        Map<TaskSource, Integer> m = new LinkedHashMap<>();
        for (TaskSource s : sources) {
            m.merge(s, 1, Integer::sum);
        }
        return new SourceCounts(m);
    }

    /** True when nothing was counted. */
    public boolean isEmpty() {
        return counts.isEmpty();
    }

    /** How many triggers in all. */
    public int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The counts keyed by wire name, in first-arrival order (for JSON). */
    public Map<String, Integer> byWireName() {
        Map<String, Integer> m = new LinkedHashMap<>();
        counts.forEach((s, n) -> m.put(s.wireName(), n));
        return Collections.unmodifiableMap(m);
    }

    /** "schedule × 12, foreground × 3, manual × 1"; empty when nothing was counted. */
    public String text() {
        return counts.entrySet().stream()
                .map(e -> e.getKey().wireName() + " × " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
