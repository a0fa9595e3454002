package org.leasesync.sync;

import java.util.Objects;

/**
 * The server's answer for one pushed change.
 *
 * @param changeId the change
 * @param recordId the record
 * @param applied true if applied (now or, with {@code duplicate}, earlier); false for a conflict
 * @param version the record's new version when applied
 * @param duplicate the change id had been applied before (nothing was applied twice)
 * @param serverVersion for a conflict: the server's newer version
 * @param serverDeleted for a conflict: whether the server's record is deleted
 * @param serverPayloadJson for a conflict: the server's payload (JSON text), never overwritten
 */
public record PushResult(
        String changeId,
        String recordId,
        boolean applied,
        long version,
        boolean duplicate,
        long serverVersion,
        boolean serverDeleted,
        String serverPayloadJson) {
    public PushResult {
        Objects.requireNonNull(changeId, "changeId");
        Objects.requireNonNull(recordId, "recordId");
    }
}
