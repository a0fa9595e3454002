package org.leasesync.sync;

import java.util.List;
import java.util.Objects;

/**
 * One page of remote changes.
 *
 * @param records changed records after the cursor, each at its latest state
 * @param nextCursor the cursor to pass next time (opaque)
 * @param hasMore whether more changes remain after {@code nextCursor}
 * @param withheld records of the page left out because they break the record limits (stored so by an
 *     older version), each named with the reason ("record 'x' version 3: ..."); the cursor moves past them
 */
public record PullPage(List<RemoteRecord> records, String nextCursor, boolean hasMore, List<String> withheld) {
    public PullPage {
        records = List.copyOf(records);
        Objects.requireNonNull(nextCursor, "nextCursor");
        withheld = List.copyOf(withheld);
    }

    /** A page with nothing withheld. */
    public PullPage(List<RemoteRecord> records, String nextCursor, boolean hasMore) {
        this(records, nextCursor, hasMore, List.of());
    }
}
