package org.leasesync.server;

import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of the server's statistics, in the JSON shape of {@code GET /v1/admin/stats}
 * (docs/protocol.md §8). Immutable. The figures are read from the server's database and cover
 * every instance sharing it; a server on H2 starts them at zero, on PostgreSQL they last until reset.
 *
 * @param requests requests to {@code /v1/users/...} received
 * @param pushes push requests that passed authentication
 * @param changesApplied changes actually applied (duplicates and conflicts excluded)
 * @param appliedByChangeId how many times each change id was actually applied (never above 1
 *     unless something is broken)
 * @param runOverlaps pairs of different {@code Sync-Run-Id}s of the same user+scope whose
 *     request intervals overlapped
 */
public record ServerStats(long requests, long pushes, long changesApplied, Map<String, Integer> appliedByChangeId,
                          long runOverlaps) {

    /** Copies the map. */
    public ServerStats {
        appliedByChangeId = Map.copyOf(Objects.requireNonNull(appliedByChangeId, "appliedByChangeId"));
    }
}
