package org.leasesync.store;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.leasesync.lease.TaskKey;

/**
 * A note added to the recovery text of the first run this process records per task key (a data
 * directory that became a device of its own says so in each key's history). Shared by a run store
 * and its transaction-bound copies. Thread-safe.
 */
final class DeviceNote {

    private final String text;
    private final Set<TaskKey> noted = ConcurrentHashMap.newKeySet();

    DeviceNote(String text) {
        this.text = Objects.requireNonNull(text, "note");
    }

    /** {@code recovery} with the note added, unless a run of {@code key} already carried it. */
    Optional<String> addTo(TaskKey key, Optional<String> recovery) {
        if (noted.contains(key)) {
            return recovery;
        }
        return Optional.of(recovery.map(r -> r + " · " + text).orElse(text));
    }

    /** A run of {@code key} carrying the note was recorded. */
    void noted(TaskKey key) {
        noted.add(key);
    }
}
