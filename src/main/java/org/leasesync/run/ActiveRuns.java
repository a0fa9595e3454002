package org.leasesync.run;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.leasesync.lease.TaskKey;

/**
 * The runs executing in this process, one per task key at most, and the per-key monitor that orders
 * every decision about a key within this process (invariant 1, one run per task key at a time:
 * docs/architecture.md; across processes the lease
 * does).
 *
 * <p>Thread-safe. Nothing here blocks except on the monitors callers take.
 */
final class ActiveRuns {

    private final Map<TaskKey, Object> locks = new ConcurrentHashMap<>();
    private final Map<TaskKey, LocalRun> active = new ConcurrentHashMap<>();

    /** The key's monitor: hold it while deciding about the key or changing its local run. */
    Object lockFor(TaskKey key) {
        return locks.computeIfAbsent(key, k -> new Object());
    }

    /** The key's local run, if one executes here. */
    Optional<LocalRun> get(TaskKey key) {
        return Optional.ofNullable(active.get(key));
    }

    boolean contains(TaskKey key) {
        return active.containsKey(key);
    }

    void add(LocalRun run) {
        active.put(run.key(), run);
    }

    /** Forgets {@code run} (only if it is still the key's local run). */
    void remove(LocalRun run) {
        active.remove(run.key(), run);
    }

    /** A snapshot of the local runs. */
    List<LocalRun> all() {
        return List.copyOf(active.values());
    }

    /**
     * Cancels the key's local run: drops its queued follow-up and fences its lease at once. Does not
     * block.
     *
     * @return false if no run of the key executes here
     */
    boolean cancel(TaskKey key, String reason) {
        LocalRun run = active.get(key);
        if (run == null) {
            return false;
        }
        run.cancelReason = reason == null || reason.isBlank() ? "cancelled" : reason;
        run.followUpSources = null;
        run.lease.requestCancel();
        return true;
    }
}
