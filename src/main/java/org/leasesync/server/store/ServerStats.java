package org.leasesync.server.store;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A snapshot of the server's statistics, in the JSON shape of {@code GET /v1/admin/stats}
 * (docs/protocol.md §8). Immutable. The figures are read from the server's database and cover
 * every instance sharing it; a server on H2 starts them at zero, on PostgreSQL they last until reset.
 *
 * <p>Change ids are counted per user+scope, because that is where the server de-duplicates them
 * (protocol §5.1): one change id used once by alice and once by bob, or once in each of two
 * scopes, is two changes applied once each, never one change applied twice.
 *
 * @param requests requests to {@code /v1/users/...} received
 * @param pushes push requests that passed authentication
 * @param changesApplied changes actually applied (duplicates and conflicts excluded)
 * @param appliedByChangeId per task key written {@code user|scope} (e.g. {@code alice|course_sync}),
 *     how many times each change id was actually applied there (never above 1 unless something is
 *     broken); both levels sorted, keys without applied changes absent
 * @param runOverlaps pairs of different {@code Sync-Run-Id}s of the same user+scope whose
 *     request intervals overlapped
 */
public record ServerStats(
        long requests,
        long pushes,
        long changesApplied,
        Map<String, Map<String, Integer>> appliedByChangeId,
        long runOverlaps) {

    /** Copies both levels of the map (sorted); rejects null and counts below 1, naming the entry. */
    public ServerStats {
        Objects.requireNonNull(appliedByChangeId, "appliedByChangeId");
        TreeMap<String, Map<String, Integer>> copy = new TreeMap<>();
        appliedByChangeId.forEach((key, counts) -> {
            Objects.requireNonNull(key, "appliedByChangeId task key");
            Objects.requireNonNull(counts, () -> "appliedByChangeId counts of " + key);
            TreeMap<String, Integer> inner = new TreeMap<>();
            counts.forEach((changeId, n) -> {
                if (n == null || n < 1) {
                    throw new IllegalArgumentException(
                            "appliedByChangeId of " + key + " change " + changeId + " must be >= 1, got " + n);
                }
                inner.put(Objects.requireNonNull(changeId, "change id"), n);
            });
            if (!inner.isEmpty()) {
                copy.put(key, Collections.unmodifiableMap(inner));
            }
        });
        appliedByChangeId = Collections.unmodifiableMap(copy);
    }

    /** The task key as {@link #appliedByChangeId} writes it: {@code user|scope}. */
    public static String taskKey(String user, String scope) {
        return user + "|" + scope;
    }

    /**
     * The counts of one user+scope: change id → how many times it was applied there.
     *
     * @return an unmodifiable map; empty if nothing was applied there
     */
    public Map<String, Integer> appliedIn(String user, String scope) {
        return appliedByChangeId.getOrDefault(taskKey(user, scope), Map.of());
    }

    /** The most applications of one change id in one user+scope; 0 if nothing was applied, above 1 is a bug. */
    public int mostApplicationsOfOneChange() {
        return appliedByChangeId.values().stream()
                .flatMap(m -> m.values().stream())
                .mapToInt(Integer::intValue)
                .max()
                .orElse(0);
    }
}
