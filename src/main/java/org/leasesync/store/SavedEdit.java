package org.leasesync.store;

import java.util.Objects;

/**
 * What saving a local edit did ({@link JdbcLocalEdits#saveEdit}). Immutable.
 *
 * @param changeId the new outbox entry's change id
 * @param baseVersion the version the entry is based on
 * @param conflict true when the record changed since the version the user saw: the edit was saved
 *     as a conflict (nothing will be pushed until the user keeps it or drops it)
 * @param currentVersion the record's version on this device when the edit was saved (0 = no such
 *     record here), which is the server's side of the conflict
 * @param currentDeleted whether the record is deleted on this device's copy of the server's data
 */
public record SavedEdit(
        String changeId, long baseVersion, boolean conflict, long currentVersion, boolean currentDeleted) {

    /** @throws IllegalArgumentException naming a negative version */
    public SavedEdit {
        Objects.requireNonNull(changeId, "changeId");
        if (baseVersion < 0 || currentVersion < 0) {
            throw new IllegalArgumentException(
                    "versions must be >= 0, got base " + baseVersion + ", current " + currentVersion);
        }
    }
}
