package org.leasesync.run;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;

/**
 * Automatic retries after failed runs: counts a key's failures in a row and, while the
 * {@link RetryPolicy} allows, schedules one {@code retry} trigger after the policy's backoff
 * (honouring a server's {@code Retry-After}). Any other run of the key cancels the pending retry
 * (it does what the retry would have done); a run that does not fail resets the count.
 *
 * <p>Delays run on the injected scheduler, i.e. on the monotonic clock: a wall clock that jumps
 * neither fires a retry early nor keeps it from ever being due. The wall-clock due time is kept only
 * for display ({@link #nextRetryAt}).
 *
 * <p>Thread-safe. Never blocks.
 */
final class RetryScheduler {

    private static final System.Logger log = System.getLogger(RetryScheduler.class.getName());

    private final ScheduledExecutorService scheduler;
    private final RetryPolicy policy;
    private final TimeSource time;
    private final Consumer<TaskKey> trigger;
    private final BooleanSupplier closed;
    private final Map<TaskKey, Integer> failureStreak = new ConcurrentHashMap<>();
    private final Map<TaskKey, Instant> retryDue = new ConcurrentHashMap<>();
    private final Map<TaskKey, ScheduledFuture<?>> retryTimers = new ConcurrentHashMap<>();

    /**
     * @param scheduler runs the retry triggers; null disables retries (failures are still counted)
     * @param policy the backoff; null means {@link RetryPolicy#NONE}
     * @param trigger submits a {@code retry} trigger for a key (called on the scheduler's thread)
     * @param closed true once the coordinator no longer takes triggers
     */
    RetryScheduler(
            ScheduledExecutorService scheduler,
            RetryPolicy policy,
            TimeSource time,
            Consumer<TaskKey> trigger,
            BooleanSupplier closed) {
        this.scheduler = scheduler;
        this.policy = policy == null ? RetryPolicy.NONE : policy;
        this.time = time;
        this.trigger = trigger;
        this.closed = closed;
    }

    /**
     * A run of {@code key} ended with {@code outcome}: schedules a retry if it failed and the policy
     * allows. A run that ended signed out also cancels the pending retries of every key of its
     * account: the server refuses the account's one session for all of them, and only signing in
     * helps (a retry due a moment later would only be refused again).
     */
    void onRunEnded(TaskKey key, RunOutcome outcome) {
        if (outcome.status() == RunStatus.SIGNED_OUT) {
            for (TaskKey pending : retryTimers.keySet()) {
                if (pending.userId().equals(key.userId())) {
                    cancel(pending);
                }
            }
        }
        if (outcome.status() != RunStatus.FAILED) {
            failureStreak.remove(key);
            retryDue.remove(key);
            return;
        }
        int attempt = failureStreak.merge(key, 1, Integer::sum);
        if (scheduler == null || attempt > policy.maxAttempts()) {
            return;
        }
        Duration delay = policy.delay(attempt, outcome.retryAfterMillis(), ThreadLocalRandom.current()::nextDouble);
        retryDue.put(key, time.now().plus(delay));
        log.log(System.Logger.Level.INFO, "{0} failed; retry {1} in {2} ms", key, attempt, delay.toMillis());
        try {
            retryTimers.put(key, scheduler.schedule(() -> fire(key), delay.toMillis(), TimeUnit.MILLISECONDS));
        } catch (RuntimeException e) {
            // Shut down (the app is closing): no retry will come, so none may be shown as due.
            retryDue.remove(key);
            log.log(System.Logger.Level.DEBUG, "retry not scheduled: {0}", e.toString());
        }
    }

    private void fire(TaskKey key) {
        retryDue.remove(key);
        retryTimers.remove(key);
        if (!closed.getAsBoolean()) {
            try {
                trigger.accept(key);
            } catch (RuntimeException | Error e) {
                log.log(System.Logger.Level.WARNING, "retry trigger for {0} failed: {1}", key, e.toString());
            }
        }
    }

    /** Cancels the key's pending retry, if any (another run of the key is starting). */
    void cancel(TaskKey key) {
        ScheduledFuture<?> timer = retryTimers.remove(key);
        if (timer != null) {
            timer.cancel(false);
        }
        retryDue.remove(key);
    }

    /** When the key's pending retry is due (wall clock, for display), if one is scheduled. */
    Optional<Instant> nextRetryAt(TaskKey key) {
        return Optional.ofNullable(retryDue.get(key));
    }
}
