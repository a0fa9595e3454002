package org.leasesync.desktop;

import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.TaskSource;

/**
 * Whether an automatic trigger (timer, foreground, the retry once the server answers again) may ask
 * the coordinator at all — the pause, and an account that is signed out. The user's own actions
 * (Sync now, Retry, Check again) never go through it.
 */
@FunctionalInterface
public interface TriggerGate {

    /** Lets everything through. */
    TriggerGate OPEN = (key, source) -> Optional.empty();

    /**
     * @return why {@code source} may not ask for {@code key} now (it is then recorded as skipped), or
     *     empty to let it ask. Thread-safe; called off the FX thread; must not block.
     */
    Optional<String> refusal(TaskKey key, TaskSource source);

    /** This gate's refusal, else {@code other}'s: a trigger passes only when both let it. */
    default TriggerGate and(TriggerGate other) {
        java.util.Objects.requireNonNull(other, "other");
        return (key, source) -> {
            Optional<String> first = refusal(key, source);
            return first.isPresent() ? first : other.refusal(key, source);
        };
    }
}
