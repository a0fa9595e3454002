package org.leasesync.desktop;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.leasesync.lease.TaskKey;

/**
 * Syncs a key shortly after the user last saved an edit of it, instead of at the next timer tick:
 * each save of a key (re)arms one trigger {@code delay} later, so a burst of saves makes one sync
 * once the user stops (a debounce, as editors' autosave does). The trigger itself goes through the
 * window's normal path (gates, then the coordinator: a running run is joined, the lease decides).
 *
 * <p>Thread-safe. The trigger runs on the injected scheduler's thread; per key at most one is armed.
 */
public final class EditSyncDebounce implements AutoCloseable {

    /** How long after the last save the key is synced. */
    public static final Duration DEFAULT_DELAY = Duration.ofSeconds(2);

    private final ScheduledExecutorService scheduler;
    private final Duration delay;
    private final Consumer<TaskKey> trigger;
    private final Map<TaskKey, ScheduledFuture<?>> armed = new HashMap<>();
    private boolean closed;

    /**
     * @param scheduler runs the trigger (the runtime's {@code sync-timer}; a manual one in tests)
     * @param delay from the last save to the trigger, at least 1 ms
     * @param trigger asks for a sync of the key
     * @throws IllegalArgumentException if {@code delay} is under 1 ms
     */
    public EditSyncDebounce(ScheduledExecutorService scheduler, Duration delay, Consumer<TaskKey> trigger) {
        this.scheduler = Objects.requireNonNull(scheduler);
        this.delay = Objects.requireNonNull(delay);
        this.trigger = Objects.requireNonNull(trigger);
        if (delay.toMillis() < 1) {
            throw new IllegalArgumentException("the sync after an edit needs a delay of at least 1 ms, got " + delay);
        }
    }

    /** An edit of {@code key} was saved: its sync is (re)armed {@code delay} from now. Does not block. */
    public synchronized void saved(TaskKey key) {
        if (closed) {
            return;
        }
        ScheduledFuture<?> previous = armed.remove(key);
        if (previous != null) {
            previous.cancel(false);
        }
        ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
        self[0] = scheduler.schedule(() -> fire(key, self[0]), delay.toMillis(), TimeUnit.MILLISECONDS);
        armed.put(key, self[0]);
    }

    private void fire(TaskKey key, ScheduledFuture<?> self) {
        synchronized (this) {
            // a save after this one was armed replaced it: that one fires
            if (closed || armed.get(key) != self) {
                return;
            }
            armed.remove(key);
        }
        trigger.accept(key);
    }

    /** Cancels the armed triggers; later saves arm nothing. */
    @Override
    public synchronized void close() {
        closed = true;
        armed.values().forEach(f -> f.cancel(false));
        armed.clear();
    }
}
