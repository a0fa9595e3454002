package org.leasesync.sync;

import java.util.List;
import java.util.Objects;

/**
 * One page of remote changes.
 *
 * @param records changed records after the cursor, each at its latest state
 * @param nextCursor the cursor to pass next time (opaque)
 * @param hasMore whether more changes remain after {@code nextCursor}
 */
public record PullPage(List<RemoteRecord> records, String nextCursor, boolean hasMore) {
    public PullPage {
        records = List.copyOf(records);
        Objects.requireNonNull(nextCursor, "nextCursor");
    }
}
