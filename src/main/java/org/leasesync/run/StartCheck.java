package org.leasesync.run;

import java.util.Optional;
import org.leasesync.lease.TaskRegistry;

/**
 * Asked by the {@link Coordinator} whether a trigger still needs a run, at the one moment the answer
 * cannot race another process: with the key's lease just granted, before the run is recorded. Any
 * run of another owner has then ended (its end is recorded before its lease is released), and no
 * other can start. Used by the window's background triggers: a timer tick right after another
 * window's successful sync is unnecessary (the {@code sync} package's {@code RecentSyncGate}).
 *
 * <p>Implementations are thread-safe and may block on the database briefly; they are called inside
 * the key's per-process monitor.
 */
@FunctionalInterface
public interface StartCheck {

    /** Every trigger needs its run; asked of no trigger. */
    StartCheck NONE = new StartCheck() {
        @Override
        public Optional<String> skipReason(TriggerRequest request) {
            return Optional.empty();
        }

        @Override
        public boolean asks(TriggerRequest request) {
            return false;
        }
    };

    /**
     * Whether {@link #skipReason} may answer anything but empty for {@code request} (and may use the
     * database). When false, the coordinator does not ask, and grants the lease in the same
     * transaction as the run's start ({@link TaskRegistry#tryAcquireJointly}): one commit; when true,
     * it grants first, asks, then starts (a check may read and write the database on connections of
     * its own, which must not wait behind the start's open transaction). Does not block.
     *
     * <p>The default is true (always asked).
     */
    default boolean asks(TriggerRequest request) {
        return true;
    }

    /**
     * Whether the trigger needs a run at all, asked once its lease is held.
     *
     * @return a plain reason why the trigger needs no run (the coordinator then releases the lease
     *     and answers {@link SubmitResult.Skipped} with it); empty to start the run
     * @throws RuntimeException if the check cannot be made; the coordinator releases the lease and
     *     rethrows (implementations that would rather run than fail answer empty instead)
     */
    Optional<String> skipReason(TriggerRequest request);
}
