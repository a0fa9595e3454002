package org.leasesync.sync;

import java.util.List;
import java.util.Optional;
import org.leasesync.lease.TaskKey;

/**
 * Storage SPI of the recent-sync check ({@link RecentSyncGate}), implemented by the {@code store}
 * package on the local database that every process of a data directory shares.
 *
 * <p>Thread-safe; blocks on database I/O; throws {@link org.leasesync.lease.StoreException} when
 * the database fails.
 */
public interface RecentSyncs {

    /** The key's newest run (highest epoch), whatever its status; empty if it never ran. */
    Optional<NewestRun> newestRun(TaskKey key);

    /** Appends a skipped trigger to the key's history. Not fenced: a skip holds no lease. */
    void recordSkip(TriggerSkip skip);

    /**
     * The key's skipped triggers, newest first (in the order they were recorded), at most {@code limit}.
     *
     * @throws IllegalArgumentException if {@code limit < 1}
     */
    List<TriggerSkip> skips(TaskKey key, int limit);
}
