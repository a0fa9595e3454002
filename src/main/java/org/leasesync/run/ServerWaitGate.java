package org.leasesync.run;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;

/**
 * Keeps every trigger — timer, window focus, Sync now, the CLI — from contacting the sync server
 * about a key before the time its {@code Retry-After} named: a run that failed with one records the
 * wait ({@link #runEnded}); the coordinator asks {@link #holding} before it grants a lease. Any other
 * end of a run forgets the wait. (The automatic retry is timed by {@link RetryScheduler} to no less
 * than the same {@code Retry-After}, on the monotonic clock.)
 *
 * <p>Thread-safe. Blocks briefly on the {@link ServerWaits} store; a store that fails is logged and
 * does not stop a run from ending or a trigger from being answered (a wait that cannot be read
 * lets the trigger through: the server then says again).
 */
final class ServerWaitGate {

    private static final System.Logger log = System.getLogger(ServerWaitGate.class.getName());

    private final TimeSource time;
    private volatile ServerWaits waits = ServerWaits.inMemory();

    ServerWaitGate(TimeSource time) {
        this.time = time;
    }

    void use(ServerWaits store) {
        this.waits = Objects.requireNonNull(store, "store");
    }

    /** The wait that holds for {@code key} now, with its end as seen now; empty when none holds. */
    Optional<ServerWait> holding(TaskKey key) {
        try {
            Instant now = time.now();
            Optional<ServerWait> recorded = waits.wait(key);
            if (recorded.isEmpty()) {
                return Optional.empty();
            }
            ServerWait w = recorded.get();
            Instant end = w.endsAt(now);
            if (end == null) {
                return Optional.empty();
            }
            if (now.isBefore(w.askedAt())) {
                // the clock was set back: the wait is anchored at this reading, so it ends after its own length
                ServerWait anchored = new ServerWait(end, now, w.reason());
                waits.save(key, anchored);
                return Optional.of(anchored);
            }
            return Optional.of(w);
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.WARNING, "could not read the server''s wait for {0}: {1}", key, e.toString());
            return Optional.empty();
        }
    }

    /** A run of {@code key} ended with {@code outcome}: records its server wait, or forgets the key's. */
    void runEnded(TaskKey key, RunOutcome outcome) {
        try {
            if (outcome.status() == RunStatus.FAILED && outcome.retryAfterMillis() > 0) {
                Instant now = time.now();
                ServerWait wait = new ServerWait(
                        now.plusMillis(outcome.retryAfterMillis()),
                        now,
                        outcome.message().orElse("the sync server asked to wait"));
                waits.save(key, wait);
                log.log(
                        System.Logger.Level.INFO,
                        "{0}: the sync server asked not to be contacted before {1}",
                        key,
                        wait.until());
            } else if (waits.wait(key).isPresent()) {
                waits.clear(key); // a read, not a write, for the common run that had no wait
            }
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.WARNING, "could not record the server''s wait for {0}: {1}", key, e.toString());
        }
    }
}
