package org.leasesync.sync;

import java.util.List;

/** The server's answer to a push: one result per change, in any order. */
public record PushResponse(List<PushResult> results) {
    public PushResponse {
        results = List.copyOf(results);
    }
}
