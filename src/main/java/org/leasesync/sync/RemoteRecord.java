package org.leasesync.sync;

import java.time.Instant;
import java.util.Objects;

/**
 * A record as the server has it.
 *
 * @param id the record id within its user and scope
 * @param version the server version, &gt;= 1
 * @param deleted whether the record was deleted (a tombstone)
 * @param payloadJson the payload, a JSON object as text ({@code {}} for tombstones)
 * @param serverTime when the server last changed it
 */
public record RemoteRecord(String id, long version, boolean deleted, String payloadJson, Instant serverTime) {
    public RemoteRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(payloadJson, "payloadJson");
        Objects.requireNonNull(serverTime, "serverTime");
        if (version < 1) {
            throw new IllegalArgumentException("record " + id + " has version " + version + "; versions start at 1");
        }
    }
}
