package org.leasesync.lease;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rule 2 of {@link TaskRegistry}'s takeover rule for a key held by another owner: whether the
 * holder is provably dead on this machine ({@link OwnerLiveness}), or was seen with the same
 * (owner, epoch, heartbeat) for at least its TTL on this registry's monotonic clock. Keeps, per
 * key, what the registry last read of such a holder, and from it answers whether a losing attempt
 * may say "held" without reading the row again ({@link TaskRegistry#REREAD_AFTER}).
 *
 * <p>Rows that name the registry's own owner are not this class's business: whether such a row is
 * a live lease or an orphan depends on what the registry holds.
 *
 * <p>Times are nanoseconds of {@link TimeSource#monotonicNanos()}; durations are the holder's
 * stored TTL. Thread-safe (one concurrent map, updated atomically per key); never blocks; reads the
 * injected time source only.
 */
final class TakeoverRule {

    // The decisions logged here are the registry's: one logger name for all of them.
    private static final System.Logger log = System.getLogger(TaskRegistry.class.getName());

    private static final long REREAD_AFTER_NANOS = TaskRegistry.REREAD_AFTER.toNanos();

    private final OwnerId self;
    private final TimeSource time;
    private final OwnerLiveness liveness;
    private final Map<LeaseKey, Observation> observations = new ConcurrentHashMap<>();

    /**
     * What this registry last read of a key another owner held: the holder's (owner, epoch,
     * heartbeat), when it first saw exactly these, when it last read the row, and how long the
     * holder must stay unchanged before a takeover ({@link #observationTtl}).
     */
    private record Observation(
            String owner, long epoch, long heartbeat, long firstSeenNanos, long readNanos, long ttlNanos) {}

    /** @param self the registry's own owner (only compared with a holder's host, for a debug line) */
    TakeoverRule(OwnerId self, TimeSource time, OwnerLiveness liveness) {
        this.self = Objects.requireNonNull(self, "self");
        this.time = Objects.requireNonNull(time, "time");
        this.liveness = Objects.requireNonNull(liveness, "liveness");
    }

    /**
     * Whether a read less than {@link TaskRegistry#REREAD_AFTER} ago found {@code key} held by a live
     * other owner who cannot be stale yet: then only a read could change the answer (a dead or
     * replaced holder, a deleted row), and a losing attempt may answer "held" without one.
     */
    boolean heldAtRecentRead(LeaseKey key) {
        if (observations.isEmpty()) {
            return false;
        }
        Observation seen = observations.get(key);
        long now = seen == null ? 0 : time.monotonicNanos();
        return seen != null && now - seen.readNanos < REREAD_AFTER_NANOS && now - seen.firstSeenNanos < seen.ttlNanos;
    }

    /**
     * Whether {@code held}, a row held by another owner or by one whose id cannot be read (a damaged
     * row), may be taken over now. Records the observation.
     *
     * @param nowNanos the monotonic time taken after {@code held} was read: a first sighting of its
     *     (owner, epoch, heartbeat) is stamped with it
     */
    boolean mayTakeOver(LeaseRecord held, long nowNanos) {
        String storedOwner = held.ownerText();
        if (storedOwner != null && held.owner().isEmpty()) {
            // A damaged row: nobody can prove its holder dead, and nobody renews under a text no
            // process writes — so its heartbeat stays still and it is taken over after one TTL.
            log.log(
                    System.Logger.Level.WARNING,
                    "{0}: the lease row names an owner that cannot be read (''{1}'', "
                            + "epoch {2}); taking it over once its heartbeat has not changed for {3}",
                    held.key(),
                    storedOwner,
                    held.epoch(),
                    observationTtl(held));
            return observedUnchanged(held, storedOwner, nowNanos);
        }
        OwnerId holder = held.owner().orElseThrow();
        if (liveness.isProvablyDead(holder)) {
            log.log(
                    System.Logger.Level.INFO,
                    "{0}: holder {1} (epoch {2}) is provably dead; taking over",
                    held.key(),
                    holder.asString(),
                    held.epoch());
            return true;
        }
        if (log.isLoggable(System.Logger.Level.DEBUG) && holder.host().equals(self.host())) {
            log.log(
                    System.Logger.Level.DEBUG,
                    "{0}: holder {1} on this machine is alive (or not provably dead)",
                    held.key(),
                    holder.asString());
        }
        return observedUnchanged(held, holder.asString(), nowNanos);
    }

    /** The registry was granted {@code key}: what it saw of an earlier holder no longer counts. */
    void forget(LeaseKey key) {
        if (!observations.isEmpty()) {
            observations.remove(key);
        }
    }

    /** Records the observation; true once the same (owner, epoch, heartbeat) was seen for the holder's TTL. */
    private boolean observedUnchanged(LeaseRecord held, String holder, long nowNanos) {
        Observation seen = observations.compute(
                held.key(),
                (k, o) -> o != null
                                && o.owner.equals(holder)
                                && o.epoch == held.epoch()
                                && o.heartbeat == held.heartbeat()
                        ? new Observation(holder, o.epoch, o.heartbeat, o.firstSeenNanos, nowNanos, o.ttlNanos)
                        : new Observation(
                                holder,
                                held.epoch(),
                                held.heartbeat(),
                                nowNanos,
                                nowNanos,
                                observationTtl(held).toNanos()));
        return nowNanos - seen.firstSeenNanos >= seen.ttlNanos;
    }

    /**
     * How long an unchanged heartbeat must be seen: the holder's TTL as stored — or, when the stored
     * TTL is outside what any holder can be granted (100 ms..1 day: a damaged row), 1 day, the longest
     * a live holder may go without renewing. Never shorter than a live holder's real TTL, never forever.
     */
    static Duration observationTtl(LeaseRecord held) {
        Duration t = held.ttl();
        return t.compareTo(Duration.ofMillis(100)) < 0 || t.compareTo(Duration.ofDays(1)) > 0 ? Duration.ofDays(1) : t;
    }
}
