package org.leasesync.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One row of the lease table as read from the store: a snapshot, possibly stale the moment it is
 * returned.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lease key (a {@link TaskKey} or a {@link JobKey})
 * @param owner the holder, empty when the key is free (released) — and also when it is held by an
 *     owner whose stored id cannot be read (a damaged row): then {@code ownerText} is present
 * @param epoch the fencing token of the latest grant (0 if never granted); increases by one per grant
 * @param heartbeat a counter incremented by every grant, renewal and release; an observer that sees
 *     it unchanged for a whole TTL on its own monotonic clock may take the key over
 * @param ttl the holder's TTL
 * @param renewedAt wall-clock time of the last grant or renewal, by the holder's clock (display only)
 * @param expiresAt {@code renewedAt + ttl}, by the holder's clock (display only; never used to
 *     decide a takeover, since clocks jump and disagree)
 * @param ownerText the stored owner id as it is, null when the key is free
 */
public record LeaseRecord(
        LeaseKey key,
        Optional<OwnerId> owner,
        long epoch,
        long heartbeat,
        Duration ttl,
        Instant renewedAt,
        Instant expiresAt,
        @Nullable String ownerText) {

    public LeaseRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(renewedAt, "renewedAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (owner.isPresent() && ownerText == null) {
            ownerText = owner.get().asString();
        }
    }

    /** A row whose owner (if any) is readable. */
    public LeaseRecord(
            LeaseKey key,
            Optional<OwnerId> owner,
            long epoch,
            long heartbeat,
            Duration ttl,
            Instant renewedAt,
            Instant expiresAt) {
        this(
                key,
                owner,
                epoch,
                heartbeat,
                ttl,
                renewedAt,
                expiresAt,
                owner.map(OwnerId::asString).orElse(null));
    }

    /** Whether someone holds the key (it was granted and not released) — also an owner whose id cannot be read. */
    public boolean isHeld() {
        return ownerText != null;
    }

    /** Whether the key is held by an owner whose stored id cannot be read (a damaged row). */
    public boolean hasUnreadableOwner() {
        return ownerText != null && owner.isEmpty();
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

    /** The fence of the current holder. @throws IllegalStateException if the key is free or its owner unreadable */
    public Fence fence() {
        return new Fence(
                key,
                owner.orElseThrow(() -> new IllegalStateException(key + " is not held by a readable owner")),
                epoch);
    }
}
