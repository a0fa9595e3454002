package org.leasesync.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One row of the lease table as read from the store: a snapshot, possibly stale the moment it is
 * returned.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lease key (a {@link TaskKey} or a {@link JobKey})
 * @param owner the holder, empty when the key is free (released)
 * @param epoch the fencing token of the latest grant (0 if never granted); increases by one per grant
 * @param heartbeat a counter incremented by every grant, renewal and release; an observer that sees
 *     it unchanged for a whole TTL on its own monotonic clock may take the key over
 * @param ttl the holder's TTL
 * @param renewedAt wall-clock time of the last grant or renewal, by the holder's clock (display only)
 * @param expiresAt {@code renewedAt + ttl}, by the holder's clock (display only; never used to
 *     decide a takeover, since clocks jump and disagree)
 */
public record LeaseRecord(LeaseKey key, Optional<OwnerId> owner, long epoch, long heartbeat,
                          Duration ttl, Instant renewedAt, Instant expiresAt) {

    public LeaseRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(renewedAt, "renewedAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** Whether someone holds the key (it was granted and not released). */
    public boolean isHeld() {
        return owner.isPresent();
    }

    /**
     * The key as a task key.
     *
     * @throws IllegalStateException naming the key when it is a job key
     */
    public TaskKey taskKey() {
        return key.asTaskKey();
    }

    /** How far in the future a holder's stored renewal time may lie and still count as "now": clock jitter between processes. */
    public static final Duration CLOCK_TOLERANCE = Duration.ofSeconds(2);

    /**
     * Whether the stored renewal time says, by {@code now} (this process's wall clock), that the
     * holder renewed within its TTL: {@code now - ttl <= renewedAt <= now + }{@link #CLOCK_TOLERANCE}.
     * Only a hint, for what to show and whether a watch is needed: the holder's clock and this one may
     * disagree by hours (either was stepped, or runs off), so false means "cannot tell by wall time" —
     * the holder may have stopped renewing, or the clocks disagree — and only watching the heartbeat
     * on a monotonic clock can tell which. Never used to decide a takeover.
     */
    public boolean renewedRecentlyBy(Instant now) {
        return isHeld() && !renewedAt.isAfter(now.plus(CLOCK_TOLERANCE)) && !renewedAt.isBefore(now.minus(ttl));
    }

    /**
     * The time left until the holder's stored expiry by {@code now}, for display, when
     * {@link #renewedRecentlyBy} holds; empty when wall time cannot tell (free key, a holder that may
     * have stopped renewing, or clocks that disagree).
     */
    public Optional<Duration> expiresInBy(Instant now) {
        if (!renewedRecentlyBy(now)) {
            return Optional.empty();
        }
        Duration left = Duration.between(now, expiresAt);
        return Optional.of(left.isNegative() ? Duration.ZERO : left);
    }

    /** The fence of the current holder. @throws IllegalStateException if the key is free */
    public Fence fence() {
        return new Fence(key, owner.orElseThrow(() -> new IllegalStateException(key + " is not held")), epoch);
    }
}
