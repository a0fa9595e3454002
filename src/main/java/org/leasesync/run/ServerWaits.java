package org.leasesync.run;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.leasesync.lease.TaskKey;

/**
 * Storage SPI for the sync server's waits ({@link ServerWait}), one per task key, implemented by the
 * {@code store} package so that a wait outlives the process: the window restarted, or the next
 * {@code leasesync sync}, still honours it. Not fenced: a wait only ever delays contact with a server,
 * and the newest run's answer is the one that counts.
 *
 * <p>Implementations are thread-safe and block briefly on their database; they throw
 * {@link org.leasesync.lease.StoreException} when it fails.
 */
public interface ServerWaits {

    /** The key's recorded wait, over or not; empty when none is recorded. */
    Optional<ServerWait> wait(TaskKey key);

    /** Records {@code wait} for {@code key}, replacing any earlier one. */
    void save(TaskKey key, ServerWait wait);

    /** Forgets the key's wait, if any. */
    void clear(TaskKey key);

    /** Waits kept in memory only (for tests and stores without a database). Thread-safe. */
    static ServerWaits inMemory() {
        Map<TaskKey, ServerWait> waits = new ConcurrentHashMap<>();
        return new ServerWaits() {
            @Override
            public Optional<ServerWait> wait(TaskKey key) {
                return Optional.ofNullable(waits.get(key));
            }

            @Override
            public void save(TaskKey key, ServerWait wait) {
                waits.put(key, wait);
            }

            @Override
            public void clear(TaskKey key) {
                waits.remove(key);
            }
        };
    }
}
