package org.leasesync.sync;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.TaskSource;

/**
 * A background trigger that asked for nothing because its key had synced successfully moments
 * before (in this process or another one on the same database). Shown in the key's history next to
 * that run. Immutable.
 *
 * @param key the task key
 * @param source the trigger ({@code schedule})
 * @param owner the process that skipped (owner id, written form)
 * @param at when it skipped, on that process's wall clock: for display only, never compared
 * @param recentRunId the successful run that made the trigger unnecessary
 * @param age how long before the skip that run had ended, on the shared monotonic clock; &ge; 0
 * @param reason a plain sentence for the history, e.g. "skipped: synced 12 s ago by another process (pid 4242)"
 */
public record TriggerSkip(
        TaskKey key, TaskSource source, String owner, Instant at, String recentRunId, Duration age, String reason) {

    /**
     * @throws NullPointerException naming the missing field
     * @throws IllegalArgumentException if {@code age} is negative or {@code reason} blank
     */
    public TriggerSkip {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(recentRunId, "recentRunId");
        Objects.requireNonNull(age, "age");
        Objects.requireNonNull(reason, "reason");
        if (age.isNegative()) {
            throw new IllegalArgumentException("skip age must be >= 0, got " + age);
        }
        if (reason.isBlank()) {
            throw new IllegalArgumentException("skip reason must not be blank");
        }
    }

    /**
     * Groups skips by the run that made them unnecessary, keeping their order: a history lists each
     * run's skips just above it (they came after it, before the next run), never ordered by wall-clock
     * times written by different processes.
     */
    public static Map<String, List<TriggerSkip>> byRun(List<TriggerSkip> skips) {
        Map<String, List<TriggerSkip>> out = new LinkedHashMap<>();
        for (TriggerSkip s : skips) {
            out.computeIfAbsent(s.recentRunId(), k -> new ArrayList<>()).add(s);
        }
        return out;
    }
}
