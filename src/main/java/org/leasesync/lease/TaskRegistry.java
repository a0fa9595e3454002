package org.leasesync.lease;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The task registry's lease policy on top of a {@link LeaseStore}: grants at most one lease per
 * lease key, decides when a held lease may be taken over, renews and releases. A lease key is a
 * {@link TaskKey} (a user's sync) or a {@link JobKey} (a server job); both follow the same rules,
 * and a task key and a job key never contend with each other.
 *
 * <p>The takeover rule (after amazon-dynamodb-lock-client's "How we handle clock skew"):
 * <ol>
 *   <li>A free key (never granted, or released) is granted by an atomic insert-or-update; a
 *       released key by one conditional update that returns the new row, with no read first.</li>
 *   <li>A held key is taken over only if its owner is provably dead on this machine
 *       ({@link OwnerLiveness}), or if this registry has seen the same (owner, epoch, heartbeat)
 *       for at least the holder's TTL on its own monotonic clock. Wall-clock expiry times are
 *       never compared, so clock jumps and clock disagreement between processes can neither steal
 *       a live lease nor keep a dead one longer than one TTL of real time after it is first seen.</li>
 *   <li>The takeover itself is one conditional {@code UPDATE} that matches the observed
 *       (owner, epoch, heartbeat): if the holder renewed meanwhile, nothing is granted.</li>
 * </ol>
 *
 * <p>Thread-safe. Methods block on the store. Contention is a value ({@code Optional.empty()}),
 * never an exception; {@link StoreException} means the database failed.
 */
public final class TaskRegistry {

    private static final System.Logger log = System.getLogger(TaskRegistry.class.getName());

    /** Default lease TTL. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

    private final LeaseStore store;
    private final OwnerId owner;
    private final Duration ttl;
    private final TimeSource time;
    private final TakeoverRule takeover;
    /**
     * Per key, the epoch this registry holds (a row naming us with another epoch is our own orphan),
     * or {@link #GRANTING} while a thread of this registry is being granted the key (its grant may be
     * committed already). One map for both, so that claiming a key locally is one atomic step.
     */
    private final Map<LeaseKey, Long> held = new ConcurrentHashMap<>();
    /** The mark of a key being granted right now; never an epoch (epochs are &gt; 0). */
    private static final Long GRANTING = 0L;

    /**
     * How long after a read that found a live other holder a losing attempt may answer "held" from
     * its failed conditional write alone, without reading the row again. Only the read
     * can lead to a takeover (a stale or provably dead holder, our own orphan) or to the insert of a
     * deleted row, so each of those is noticed at most this much later; a release is never noticed
     * later (the conditional write grants a free key). Well below the shortest TTL (100 ms), counted
     * on the injected monotonic clock.
     */
    public static final Duration REREAD_AFTER = Duration.ofMillis(2);

    /**
     * @param ttl lease time-to-live; must be at least 100 ms and at most 1 day
     * @throws IllegalArgumentException if the TTL is out of range (the message names it)
     */
    public TaskRegistry(LeaseStore store, OwnerId owner, Duration ttl, TimeSource time, OwnerLiveness liveness) {
        this.store = Objects.requireNonNull(store, "store");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.ttl = validateTtl(ttl);
        this.time = Objects.requireNonNull(time, "time");
        this.takeover = new TakeoverRule(owner, time, Objects.requireNonNull(liveness, "liveness"));
    }

    /**
     * Checks a TTL setting.
     *
     * @return the same value
     * @throws IllegalArgumentException if null, zero, negative, under 100 ms or over 1 day
     */
    public static Duration validateTtl(Duration ttl) {
        if (ttl == null || ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("lease TTL must be positive, got " + ttl);
        }
        if (ttl.compareTo(Duration.ofMillis(100)) < 0 || ttl.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("lease TTL must be between 100ms and 1 day, got " + ttl);
        }
        return ttl;
    }

    /** This registry's owner id. */
    public OwnerId owner() {
        return owner;
    }

    /** The TTL this registry grants leases with. */
    public Duration ttl() {
        return ttl;
    }

    /** The time source used for lease decisions. */
    public TimeSource time() {
        return time;
    }

    /**
     * Tries to take the lease for {@code key} (a task key or a job key). Blocks on the store.
     *
     * @return the held lease, or empty if another owner holds the key (live, or not yet provably
     *     dead and not yet seen unchanged for a TTL) — including another thread of this process
     * @throws StoreException if the database fails
     */
    public Optional<HeldLease> tryAcquire(LeaseKey key) {
        Objects.requireNonNull(key, "key");
        // Another thread of this registry holds the key, or is being granted it right now: that is
        // contention, answered without the database. Without this check, a row naming us whose
        // grant the other thread has not noted in `held` yet would look like our orphan and be taken
        // over, so two threads would hold the key.
        if (held.putIfAbsent(key, GRANTING) != null) {
            return Optional.empty();
        }
        boolean granted = false;
        try {
            Optional<HeldLease> lease = acquire(key); // a grant replaces the mark by its epoch
            granted = lease.isPresent();
            return lease;
        } finally {
            if (!granted) {
                held.remove(key, GRANTING);
            }
        }
    }

    private Optional<HeldLease> acquire(LeaseKey key) {
        long startNanos = time.monotonicNanos();
        Optional<LeaseRecord> granted = grant(store, key);
        if (granted.isEmpty()) {
            return Optional.empty();
        }
        noteGranted(key, granted.get().epoch());
        return Optional.of(new HeldLease(granted.get().fence(), ttl, time, startNanos));
    }

    /** A grant is committed: the key is held with {@code epoch}; its observation is void. */
    private void noteGranted(LeaseKey key, long epoch) {
        takeover.forget(key);
        held.put(key, epoch);
    }

    /**
     * Whether {@link #tryAcquireJointly} can be used with {@code partner}: the lease store is a
     * {@link JointGrantStore} and writes to the same database as {@code partner}
     * ({@link JointGrantStore#canJoin}). Does not block.
     *
     * @return false when the lease store cannot share a transaction, or not with {@code partner}
     */
    public boolean canGrantJointly(Object partner) {
        return store instanceof JointGrantStore joint && joint.canJoin(partner);
    }

    /** What {@link #tryAcquireJointly} committed: the lease and what the work returned. */
    public record Joint<T>(HeldLease lease, T result) {
        /** @throws NullPointerException if the lease is null */
        public Joint {
            Objects.requireNonNull(lease, "lease");
        }
    }

    /** Rolls a joint transaction back when its grant was not made (nothing to commit). */
    private static final class NotGranted extends LeasesyncException {
        private static final long serialVersionUID = 1L;

        NotGranted() {
            super("not granted");
        }
    }

    /**
     * Tries to take the lease for {@code key} and, in the SAME local transaction, runs {@code work}
     * with the new lease and a view of {@code partner} bound to that transaction
     * ({@link JointGrantStore#inTransactionWith}): the grant and every write of {@code work} commit as
     * one, so a started trigger is one commit. The grant follows the same rules as
     * {@link #tryAcquire} (fast path, read, takeover after a TTL of observation or of a provably dead
     * holder), with the same atomic conditional write, only uncommitted until {@code work} returns.
     *
     * <p>The registry's in-memory state changes only after the commit: while the transaction is open
     * the key is marked as being granted (another thread of this registry gets empty without the
     * database, as with {@link #tryAcquire}); another registry's grant of the key waits on the lease
     * row's lock and then finds it held, or — after a rollback — as it was. If the grant is not made,
     * the transaction is rolled back and empty is returned; if {@code work} or the commit throws,
     * the transaction is rolled back (nothing granted in the database, the key grantable at once),
     * the key's mark is removed, the lease given to {@code work} is marked lost, and the exception
     * is rethrown. A rolled-back grant's epoch was never committed, so the next grant may use the
     * same number; no write under it can commit (fencing). A commit that fails ambiguously may have
     * committed: the row then names this owner with an epoch it does not hold, which the next
     * attempt takes back as an orphan (as after a {@link #tryAcquire} whose answer was lost).
     *
     * <p>Thread-safe; blocks on the database, holding one pooled connection for the whole of
     * {@code work} — which must therefore not wait for another connection of the same pool.
     *
     * @param <P> the partner store's type (for the client: its run store)
     * @param partner the store whose writes join the transaction; {@link #canGrantJointly} must be true
     * @param what a short description, used in messages
     * @param work runs inside the transaction with the new lease and the bound partner; it may be
     *     run again if the connection breaks before the commit, so it must keep no state of an
     *     attempt outside what it returns
     * @return the committed lease and what {@code work} returned; empty if another owner holds the
     *     key (as {@link #tryAcquire}), including another thread of this process
     * @throws UnsupportedOperationException if the stores cannot share a transaction
     * @throws StoreException if the database fails (nothing is granted)
     * @throws RuntimeException whatever {@code work} threw (nothing is granted)
     */
    public <P, T> Optional<Joint<T>> tryAcquireJointly(
            LeaseKey key, P partner, String what, java.util.function.BiFunction<HeldLease, P, T> work) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(work, "work");
        if (!canGrantJointly(partner)) {
            throw new UnsupportedOperationException(
                    "the lease store " + store + " cannot share a transaction with " + partner);
        }
        JointGrantStore jointStore = (JointGrantStore) store;
        if (held.putIfAbsent(key, GRANTING) != null) {
            return Optional.empty();
        }
        List<HeldLease> given = new java.util.ArrayList<>(1); // every attempt's lease, to void on failure
        boolean granted = false;
        try {
            Joint<T> joint = jointStore.inTransactionWith(partner, what, (leases, tx) -> {
                LeaseRecord row = grant(leases, key).orElseThrow(NotGranted::new); // roll back: nothing to keep
                // The lease's time counts from after the grant's write, not from before it: that write
                // can wait on another transaction's lock for most of a TTL (H2's LOCK_TIMEOUT), and the
                // lease would arrive used up. It is still safe: the row stays invisible until the commit
                // that follows, and another owner takes over only after seeing it unchanged for a TTL of
                // its own from then on.
                long startNanos = time.monotonicNanos();
                HeldLease lease = new HeldLease(row.fence(), ttl, time, startNanos);
                given.add(lease);
                return new Joint<>(lease, work.apply(lease, tx));
            });
            noteGranted(key, joint.lease().fence().epoch());
            granted = true;
            return Optional.of(joint);
        } catch (NotGranted e) {
            return Optional.empty();
        } finally {
            if (!granted) {
                held.remove(key, GRANTING);
                given.forEach(l -> l.markLost(LeaseLoss.RELEASED));
            }
        }
    }

    /**
     * One attempt to be granted {@code key} through {@code store} (the registry's own, or a view bound
     * to a joint transaction); every grant is one atomic conditional write.
     * <ul>
     *   <li>Every attempt starts with the conditional write of a free key and no read
     *       ({@link LeaseStore#grantIfFree}): a free key is granted by that one statement.</li>
     *   <li>If it matched nothing and this registry read the row less than {@link #REREAD_AFTER} ago
     *       and found it held by a live other owner, the answer is "held" without a read: one
     *       statement per losing attempt, as a lock without fencing needs.</li>
     *   <li>Otherwise the row is read: a key never granted gets the conditional insert
     *       ({@link LeaseStore#grantIfNew}), a key released meanwhile the conditional write, a stale
     *       or provably dead holder's key the takeover write; a live holder's key nothing (the read
     *       keeps the observation the takeover rule needs).</li>
     * </ul>
     */
    private Optional<LeaseRecord> grant(LeaseStore store, LeaseKey key) {
        Optional<LeaseRecord> free = store.grantIfFree(key, owner, ttl, time.now());
        if (free.isPresent()) {
            return free;
        }
        if (takeover.heldAtRecentRead(key)) {
            // only a read could change the answer, and it comes at most REREAD_AFTER later
            return Optional.empty();
        }
        Optional<LeaseRecord> current = store.read(key);
        if (current.isEmpty()) {
            return store.grantIfNew(key, owner, ttl, time.now()); // never granted: insert
        }
        if (!current.get().isHeld()) {
            return store.grantIfFree(key, owner, ttl, time.now()); // released meanwhile
        }
        // The observation's clock starts after the read returned — never before it: a
        // holder's renewal that the read saw started before this instant, so one TTL from here never
        // ends before its lease does, however long this thread stalled before or during the read.
        if (!isStale(current.get(), time.monotonicNanos())) {
            return Optional.empty();
        }
        Optional<LeaseRecord> granted = store.tryGrant(key, owner, ttl, time.now(), current);
        if (granted.isEmpty()) {
            LeaseRecord t = current.get();
            log.log(
                    System.Logger.Level.WARNING,
                    "could not take {0} over from {1} (epoch {2}): "
                            + "the lease row changed or stayed locked meanwhile",
                    key,
                    t.ownerText(),
                    t.epoch());
        }
        return granted;
    }

    /**
     * Whether the held row may be taken over now (rule 2 above; a row naming this owner is ours or
     * our orphan). Records the observation of another owner's row.
     *
     * @param nowNanos the monotonic time taken after {@code held} was read: a first sighting of its
     *     (owner, epoch, heartbeat) is stamped with it
     */
    private boolean isStale(LeaseRecord held, long nowNanos) {
        if (held.owner().isPresent() && held.owner().get().equals(owner)) {
            // Ours: live if we hold it; otherwise an orphan of a grant whose answer we never got
            // (e.g. the connection broke after the commit): nobody runs under it, take it back.
            Long mine = this.held.get(held.key());
            return mine == null || mine != held.epoch();
        }
        return takeover.mayTakeOver(held, nowNanos);
    }

    /**
     * Renews a held lease. On success the local validity is extended; when the store says the
     * fence is no longer current, the lease-lost signal fires with {@link LeaseLoss#TAKEN_OVER} and
     * this registry forgets the lease.
     *
     * <p>A lease whose local validity has already run out is not renewed late: nothing is written,
     * the lease-lost signal fires with {@link LeaseLoss#EXPIRED}, and the key stays held — this
     * registry answers {@link #tryAcquire} of it with empty, and the row still names this owner
     * (another registry takes it over once it has seen the row unchanged for a TTL) — until
     * {@link #release} is called. So an expired lease must still be released — whether its expiry
     * was found here, by {@link HeldLease#checkedFence} or by the {@link LeaseKeeper}.
     *
     * @return true if renewed, false if lost (taken over, or expired)
     * @throws StoreException if the database fails (the lease is then neither renewed nor lost)
     */
    public boolean renew(HeldLease lease) {
        long start = time.monotonicNanos();
        if (lease.remainingNanos() <= 0) {
            lease.markLost(LeaseLoss.EXPIRED);
            return false;
        }
        if (store.renew(lease.fence(), lease.ttl(), time.now())) {
            lease.renewed(start);
            return true;
        }
        held.remove(lease.fence().key(), lease.fence().epoch());
        lease.markLost(LeaseLoss.TAKEN_OVER);
        return false;
    }

    /**
     * Releases a held lease (frees the key for the next grant) and fires its signal with
     * {@link LeaseLoss#RELEASED} (or the earlier reason). Call it for every lease this registry
     * granted, also one already lost: only this frees an expired lease's key here (see
     * {@link #renew}), and in the store too if nobody took the key over meanwhile. This registry
     * forgets the lease and fires its signal even when the store fails.
     *
     * @return false if the lease was no longer ours (nothing changed in the store)
     * @throws StoreException if the database fails
     */
    public boolean release(HeldLease lease) {
        try {
            return store.release(lease.fence(), time.now());
        } finally {
            held.remove(lease.fence().key(), lease.fence().epoch());
            lease.markLost(LeaseLoss.RELEASED);
        }
    }

    /**
     * Raises the epoch of a lease this registry holds to {@code newEpoch}, if its fence is still
     * current — for a lease table that went back in time, so that no epoch this key already used
     * (in local run records, or as a fencing token the sync server has seen) is ever granted again.
     * The old lease stops being valid (its lost signal fires with {@link LeaseLoss#RELEASED}); the
     * returned one carries the new fence. Blocks on the store.
     *
     * @return the lease under the new epoch; empty if the fence was no longer current (nothing changed)
     * @throws IllegalArgumentException if {@code newEpoch} is not above the lease's epoch
     * @throws StoreException if the database fails
     */
    public Optional<HeldLease> raiseEpoch(HeldLease lease, long newEpoch) {
        Fence old = lease.fence();
        if (newEpoch <= old.epoch()) {
            throw new IllegalArgumentException("the new epoch must be above " + old.epoch() + ", got " + newEpoch);
        }
        long start = time.monotonicNanos();
        if (!store.raiseEpoch(old, newEpoch, time.now())) {
            return Optional.empty();
        }
        log.log(System.Logger.Level.WARNING, "{0}: epoch raised from {1} to {2}", old.key(), old.epoch(), newEpoch);
        held.put(old.key(), newEpoch);
        lease.markLost(LeaseLoss.RELEASED);
        return Optional.of(new HeldLease(new Fence(old.key(), old.owner(), newEpoch), lease.ttl(), time, start));
    }

    /** The key's lease row, if the key was ever granted. */
    public Optional<LeaseRecord> lease(LeaseKey key) {
        return store.read(key);
    }

    /** All lease rows, of task keys and job keys, ordered by the written key. */
    public List<LeaseRecord> leases() {
        return store.readAll();
    }
}
