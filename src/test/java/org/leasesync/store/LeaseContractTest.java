package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.Fence;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.testing.ForwardingLeaseStore;
import org.leasesync.testing.ManualTime;

/**
 * The lease contract: what the lease policy ({@link TaskRegistry}) does on a {@link LeaseStore},
 * for task keys and job keys alike. Every lease store passes it — the SQL one on each backend
 * (through {@link RegistryContractTest}, which adds runs, checkpoints and history) and the
 * in-memory one the unit tests use ({@link InMemoryLeaseStoreContractTest}), so the two answer
 * alike. Time is a {@link ManualTime}; no test sleeps.
 */
abstract class LeaseContractTest {

    static final Duration TTL = Duration.ofSeconds(60);
    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final JobKey JOB = JobKey.of("expire-idempotency-keys");

    LeaseStore leases;
    ManualTime time;
    TaskRegistry a;
    TaskRegistry b;

    /** A new, empty lease store for one test; closed by the subclass after it. */
    abstract LeaseStore openLeases() throws Exception;

    /** Overwrites the key's stored owner with {@code ownerText}, as a damaged table would hold it. */
    abstract void damageOwner(LeaseKey key, String ownerText);

    /** Overwrites the key's stored TTL, as a damaged table would hold it. */
    abstract void damageTtl(LeaseKey key, Duration ttl);

    @BeforeEach
    void setUpLeases() throws Exception {
        leases = openLeases();
        time = new ManualTime();
        a = registry(owner("a"));
        b = registry(owner("b"));
    }

    static OwnerId owner(String nonce) {
        return new OwnerId("test-host", ProcessHandle.current().pid(), 1, nonce);
    }

    TaskRegistry registry(OwnerId owner) {
        return new TaskRegistry(leases, owner, TTL, time, OwnerLiveness.neverProvable());
    }

    @Test
    void firstGrantOfAKeyHasEpochOne() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThat(lease.fence().epoch()).isEqualTo(1);
        LeaseRecord row = a.lease(KEY).orElseThrow();
        assertThat(row.owner()).contains(a.owner());
        assertThat(row.expiresAt()).isEqualTo(time.now().plus(TTL));
    }

    @Test
    void heldKeyIsNotGrantedToAnotherOwnerNorTwiceToTheSameOwner() {
        assertThat(a.tryAcquire(KEY)).isPresent();
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(a.tryAcquire(KEY)).isEmpty();
    }

    @Test
    void everyGrantIncrementsTheEpochAlsoAfterRelease() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        assertThat(a.release(first)).isTrue();
        HeldLease second = b.tryAcquire(KEY).orElseThrow();
        assertThat(second.fence().epoch()).isEqualTo(2);
        assertThat(b.release(second)).isTrue();
        assertThat(a.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(3);
    }

    @Test
    void differentUsersAndScopesAreDifferentTasks() {
        assertThat(a.tryAcquire(KEY)).isPresent();
        assertThat(b.tryAcquire(TaskKey.of("bob", "course_sync"))).isPresent();
        assertThat(b.tryAcquire(TaskKey.of("alice", "message_sync"))).isPresent();
        assertThat(a.leases())
                .extracting(r -> r.key().asString())
                .containsExactly("alice|course_sync", "alice|message_sync", "bob|course_sync");
    }

    @Test
    void otherOwnerCanNeitherRenewNorRelease() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        var forged = new org.leasesync.lease.Fence(KEY, b.owner(), lease.fence().epoch());
        assertThat(leases.renew(forged, TTL, time.now())).isFalse();
        assertThat(leases.release(forged, time.now())).isFalse();
        assertThat(a.lease(KEY).orElseThrow().owner()).contains(a.owner());
        assertThat(a.renew(lease)).isTrue();
    }

    @Test
    void unrenewedLeaseGoesToAnotherOwnerAfterOneTtlOfObservation() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty(); // b starts observing
        time.elapse(TTL.minusMillis(1));
        assertThat(b.tryAcquire(KEY)).isEmpty(); // not yet one TTL
        time.elapse(Duration.ofMillis(1));
        HeldLease taken = b.tryAcquire(KEY).orElseThrow();
        assertThat(taken.fence().epoch()).isEqualTo(2);
        // the old holder now finds out: renew refused, lost signal fired
        assertThat(a.renew(old)).isFalse();
        assertThat(old.lostSignal()).isCompleted();
        assertThat(old.isValid()).isFalse();
    }

    @Test
    void aKeySeenHeldIsGrantedOnceFreeAndANewHoldersLeaseGetsAFreshTtlOfObservation() {
        TaskRegistry c = registry(owner("c"));
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty(); // b and c have seen a hold it
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL.minusMillis(1));
        assertThat(a.release(first)).isTrue();
        HeldLease second = c.tryAcquire(KEY).orElseThrow(); // seen held before, free now: granted
        assertThat(second.fence().epoch()).isEqualTo(2);
        time.elapse(Duration.ofMillis(1)); // b first saw a's row one TTL ago
        assertThat(b.tryAcquire(KEY))
                .as("c's lease is new to b: one TTL from now")
                .isEmpty();
        time.elapse(TTL.minusMillis(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(c.release(second)).isTrue();
        assertThat(b.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(3);
        assertThat(a.lease(KEY).orElseThrow().owner()).contains(b.owner());
    }

    @Test
    void renewedLeaseIsNeverTakenOver() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        for (int i = 0; i < 30; i++) {
            assertThat(b.tryAcquire(KEY)).as("round %d", i).isEmpty();
            time.elapse(TTL.dividedBy(3));
            assertThat(a.renew(lease)).isTrue();
        }
        assertThat(lease.isValid()).isTrue();
        assertThat(a.lease(KEY).orElseThrow().epoch()).isEqualTo(1);
    }

    @Test
    void holderStopsTrustingItsLeaseBeforeAnyoneCanTakeItOver() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL.multipliedBy(9).dividedBy(10));
        assertThatThrownBy(lease::checkedFence)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("expired");
        assertThat(lease.lostSignal().join()).isEqualTo(LeaseLoss.EXPIRED);
        assertThat(b.tryAcquire(KEY)).isEmpty(); // still inside b's observation window
    }

    @Test
    void wallClockJumpForwardByHoursStealsNoLiveLease() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        time.jumpWall(Duration.ofHours(5));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL.dividedBy(3));
        assertThat(a.renew(lease)).isTrue();
        time.jumpWall(Duration.ofHours(5));
        time.elapse(TTL.dividedBy(3));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void wallClockJumpBackByHoursDoesNotKeepADeadLeaseLongerThanOneTtl() {
        a.tryAcquire(KEY).orElseThrow(); // a dies right after
        time.jumpWall(Duration.ofHours(-5));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL);
        assertThat(b.tryAcquire(KEY)).isPresent();
    }

    @Test
    void disagreeingClocksDoNotMatter() {
        ManualTime bTime = new ManualTime(time.now().plus(Duration.ofHours(3)));
        TaskRegistry skewed = new TaskRegistry(leases, owner("c"), TTL, bTime, OwnerLiveness.neverProvable());
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThat(skewed.tryAcquire(KEY)).isEmpty();
        bTime.elapse(TTL.dividedBy(2));
        time.elapse(TTL.dividedBy(2));
        assertThat(a.renew(lease)).isTrue();
        bTime.elapse(TTL.dividedBy(2));
        assertThat(skewed.tryAcquire(KEY)).isEmpty(); // heartbeat moved: observation restarted
        bTime.elapse(TTL);
        assertThat(skewed.tryAcquire(KEY)).isPresent(); // a stopped renewing
    }

    /**
     * The "same heartbeat for one TTL" observation starts when the observed row was
     * read. An acquiring thread stalls between asking and reading (GC, SIGSTOP, a wait for a pooled
     * connection) for more than half a TTL while the holder renews; it reads the renewed row, then asks
     * again within the holder's renewal interval: the holder renewed half a TTL ago, so nothing may be
     * taken. (Counting from before the stall, 0.6 + 0.5 TTL had "passed", and the key was taken.)
     */
    @Test
    void theUnchangedHeartbeatIsCountedFromTheReadThatSawItNotFromBeforeAStall() {
        HeldLease held = a.tryAcquire(KEY).orElseThrow();
        AtomicInteger stalls = new AtomicInteger(1);
        LeaseStore slow = new ForwardingLeaseStore(leases) {
            @Override
            public Optional<LeaseRecord> read(LeaseKey key) {
                if (stalls.getAndDecrement() > 0) {
                    time.elapse(TTL.multipliedBy(6).dividedBy(10)); // the stall, on the monotonic clock too
                    assertThat(a.renew(held)).isTrue(); // the holder renews meanwhile
                }
                return super.read(key);
            }
        };
        TaskRegistry stalled = new TaskRegistry(slow, owner("5"), TTL, time, OwnerLiveness.neverProvable());
        long renewedHeartbeat = a.lease(KEY).orElseThrow().heartbeat() + 1;
        assertThat(stalled.tryAcquire(KEY)).isEmpty();
        assertThat(stalls.get()).as("the stall happened inside tryAcquire").isZero();
        assertThat(a.lease(KEY).orElseThrow().heartbeat()).isEqualTo(renewedHeartbeat);
        time.elapse(TTL.dividedBy(2));
        assertThat(stalled.tryAcquire(KEY))
                .as("taken half a TTL after the holder renewed")
                .isEmpty();
        assertThat(held.isValid()).isTrue();
        assertThat(a.lease(KEY).orElseThrow().epoch()).isEqualTo(1);
        time.elapse(TTL.dividedBy(2)); // now a whole TTL since the read that saw the last renewal
        assertThat(stalled.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    /** The takeover write matches exactly the row the observer read: any change since grants nothing. */
    @Test
    void aTakeoverOfARowThatChangedSinceItWasReadGrantsNothing() {
        HeldLease held = a.tryAcquire(KEY).orElseThrow();
        LeaseRecord observed = leases.read(KEY).orElseThrow();
        assertThat(a.renew(held)).isTrue();
        assertThat(leases.tryGrant(KEY, b.owner(), TTL, time.now(), Optional.of(observed)))
                .as("renewed")
                .isEmpty();
        LeaseRecord renewed = leases.read(KEY).orElseThrow();
        assertThat(renewed.owner()).contains(a.owner());
        assertThat(renewed.epoch()).isEqualTo(1);
        assertThat(renewed.heartbeat()).isEqualTo(2);
        assertThat(leases.tryGrant(
                        KEY,
                        b.owner(),
                        TTL,
                        time.now(),
                        Optional.of(new LeaseRecord(
                                KEY,
                                Optional.of(b.owner()),
                                1,
                                2,
                                TTL,
                                time.now(),
                                time.now().plus(TTL)))))
                .as("another owner than the one stored")
                .isEmpty();
        assertThat(a.release(held)).isTrue();
        HeldLease again = a.tryAcquire(KEY).orElseThrow();
        assertThat(leases.tryGrant(KEY, b.owner(), TTL, time.now(), Optional.of(renewed)))
                .as("re-granted")
                .isEmpty();
        LeaseRecord current = leases.read(KEY).orElseThrow();
        assertThat(current.epoch()).isEqualTo(2);
        LeaseRecord taken = leases.tryGrant(KEY, b.owner(), TTL, time.now(), Optional.of(current))
                .orElseThrow();
        assertThat(taken.epoch()).isEqualTo(3);
        assertThat(taken.heartbeat()).isEqualTo(current.heartbeat() + 1);
        assertThat(a.renew(again)).isFalse();
    }

    /**
     * The holder's row moves on after the observer judged it stale and before the takeover write (a
     * holder that was paused renews; its own clock decides whether it may, not the observer's):
     * nothing is taken.
     */
    @Test
    void aHolderThatRenewsBetweenTheObserversReadAndItsTakeoverKeepsItsLease() {
        HeldLease held = a.tryAcquire(KEY).orElseThrow();
        AtomicInteger renewals = new AtomicInteger(1);
        LeaseStore racing = new ForwardingLeaseStore(leases) {
            @Override
            public Optional<LeaseRecord> tryGrant(
                    LeaseKey key, OwnerId o, Duration ttl, java.time.Instant now, Optional<LeaseRecord> takeOver) {
                if (takeOver.isPresent() && renewals.getAndDecrement() > 0) {
                    assertThat(leases.renew(held.fence(), TTL, now)).isTrue();
                }
                return super.tryGrant(key, o, ttl, now, takeOver);
            }
        };
        TaskRegistry c = new TaskRegistry(racing, owner("c"), TTL, time, OwnerLiveness.neverProvable());
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL.multipliedBy(8).dividedBy(10));
        assertThat(a.renew(held)).isTrue();
        assertThat(c.tryAcquire(KEY)).isEmpty(); // the heartbeat moved: c's count starts again
        time.elapse(TTL);
        assertThat(c.tryAcquire(KEY))
                .as("stale by c's count, renewed before the write")
                .isEmpty();
        assertThat(renewals).hasValue(0);
        LeaseRecord row = leases.read(KEY).orElseThrow();
        assertThat(row.owner()).contains(a.owner());
        assertThat(row.epoch()).isEqualTo(1);
        assertThat(row.heartbeat()).isEqualTo(3);
    }

    @Test
    void provablyDeadOwnerIsTakenOverAtOnce() {
        OwnerId ghost = new OwnerId("test-host", 999_999_999L, 1, "dead");
        TaskRegistry dead = registry(ghost);
        dead.tryAcquire(KEY).orElseThrow();
        TaskRegistry c = new TaskRegistry(leases, owner("c"), TTL, time, o -> o.equals(ghost));
        assertThat(c.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void aReleaseIsSeenAtOnceAlsoByARegistryThatJustSawTheKeyHeld() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty(); // b read the row: held by a, live
        assertThat(b.tryAcquire(KEY)).isEmpty(); // within REREAD_AFTER: no read, still held
        assertThat(a.release(first)).isTrue();
        // same instant on b's clock: the conditional write grants the released key, no waiting
        assertThat(b.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void aHolderProvenDeadJustAfterAReadIsTakenOverOnceRereadAfterHasPassed() {
        OwnerId ghost = new OwnerId("test-host", 999_999_999L, 1, "dead");
        registry(ghost).tryAcquire(KEY).orElseThrow();
        java.util.concurrent.atomic.AtomicBoolean dead = new java.util.concurrent.atomic.AtomicBoolean();
        TaskRegistry c = new TaskRegistry(leases, owner("c"), TTL, time, o -> o.equals(ghost) && dead.get());
        assertThat(c.tryAcquire(KEY)).isEmpty(); // read: alive
        dead.set(true);
        // within REREAD_AFTER of that read the answer comes from the failed conditional write alone
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(TaskRegistry.REREAD_AFTER.minusNanos(1));
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofNanos(1)); // the bound: read again, proven dead, taken over
        assertThat(c.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
        assertThat(c.lease(KEY).orElseThrow().owner()).contains(c.owner());
    }

    /** A lease row with an owner id nobody can parse failed every grant of its key, forever. */
    @Test
    void aLeaseRowWithAnUnreadableOwnerIsListedAndTakenOverAfterOneTtlLikeAnySilentHolder() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        damageOwner(KEY, "not an owner id");
        LeaseRecord row = b.lease(KEY).orElseThrow();
        assertThat(row.isHeld()).isTrue();
        assertThat(row.hasUnreadableOwner()).isTrue();
        assertThat(row.ownerText()).isEqualTo("not an owner id");
        assertThat(leases.readAll()).extracting(LeaseRecord::ownerText).containsExactly("not an owner id");

        assertThat(b.tryAcquire(KEY)).as("first seen: observed, not taken").isEmpty();
        time.elapse(TTL.minusSeconds(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofSeconds(1));
        HeldLease taken = b.tryAcquire(KEY).orElseThrow();
        assertThat(taken.fence().epoch()).isEqualTo(old.fence().epoch() + 1);
        assertThat(b.lease(KEY).orElseThrow().owner()).contains(b.owner());
        assertThatThrownBy(old::checkedFence).isInstanceOf(LeaseLostException.class);
    }

    /** A damaged TTL (longer than any holder may have) keeps a dead holder's key at most one day, not for ever. */
    @Test
    void aLeaseRowWithAnImpossibleTtlIsObservedForAtMostOneDay() {
        a.tryAcquire(KEY).orElseThrow();
        damageTtl(KEY, Duration.ofDays(3650));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofDays(1).minusSeconds(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofSeconds(1));
        assertThat(b.tryAcquire(KEY)).isPresent();
    }

    @Test
    void jobKeyIsGrantedRenewedReleasedAndRegrantedWithAHigherEpoch() {
        HeldLease lease = a.tryAcquire(JOB).orElseThrow();
        assertThat(lease.fence().epoch()).isEqualTo(1);
        assertThat(lease.key()).isEqualTo(JOB);
        assertThat(b.tryAcquire(JOB)).isEmpty();
        assertThat(a.tryAcquire(JOB)).isEmpty();
        time.elapse(TTL.dividedBy(3));
        assertThat(a.renew(lease)).isTrue();
        LeaseRecord row = b.lease(JOB).orElseThrow();
        assertThat(row.key()).isEqualTo(JOB);
        assertThat(row.owner()).contains(a.owner());
        assertThat(row.heartbeat()).isEqualTo(2);
        assertThat(row.expiresAt()).isEqualTo(time.now().plus(TTL));
        assertThat(a.release(lease)).isTrue();
        assertThat(b.lease(JOB).orElseThrow().isHeld()).isFalse();
        assertThat(b.tryAcquire(JOB).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void renewedJobLeaseIsNeverTakenOverAndAForgedFenceIsRefused() {
        HeldLease lease = a.tryAcquire(JOB).orElseThrow();
        for (int i = 0; i < 10; i++) {
            assertThat(b.tryAcquire(JOB)).as("round %d", i).isEmpty();
            time.elapse(TTL.dividedBy(3));
            assertThat(a.renew(lease)).isTrue();
        }
        Fence forged = new Fence(JOB, b.owner(), lease.fence().epoch());
        assertThat(leases.renew(forged, TTL, time.now())).isFalse();
        assertThat(leases.release(forged, time.now())).isFalse();
        assertThat(a.lease(JOB).orElseThrow().epoch()).isEqualTo(1);
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void provablyDeadJobHolderIsTakenOverAtOnce() {
        OwnerId ghost = new OwnerId("test-host", 999_999_999L, 1, "dead");
        registry(ghost).tryAcquire(JOB).orElseThrow();
        TaskRegistry c = new TaskRegistry(leases, owner("c"), TTL, time, o -> o.equals(ghost));
        assertThat(c.tryAcquire(JOB).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void taskKeysAndJobKeysLiveSideBySideAndNeverContend() {
        // a user id that starts like a job key is still a task key: the two written forms never collide
        TaskKey lookalike = TaskKey.of("job:prune-audit-log", "course_sync");
        JobKey prune = JobKey.of("prune-audit-log");
        HeldLease task = a.tryAcquire(KEY).orElseThrow();
        HeldLease job = a.tryAcquire(JOB).orElseThrow();
        HeldLease look = b.tryAcquire(lookalike).orElseThrow();
        HeldLease pruneLease = b.tryAcquire(prune).orElseThrow();
        assertThat(List.of(task, job, look, pruneLease))
                .allSatisfy(l -> assertThat(l.fence().epoch()).isEqualTo(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(b.tryAcquire(JOB)).isEmpty();
        assertThat(a.tryAcquire(prune)).isEmpty();
        assertThat(a.tryAcquire(lookalike)).isEmpty();

        List<LeaseRecord> rows = a.leases();
        assertThat(rows)
                .extracting(r -> r.key().asString())
                .containsExactly(
                        "alice|course_sync",
                        "job:expire-idempotency-keys",
                        "job:prune-audit-log",
                        "job:prune-audit-log|course_sync");
        assertThat(rows).extracting(LeaseRecord::key).containsExactly(KEY, JOB, prune, lookalike);
        assertThat(rows.get(1).key()).isInstanceOf(JobKey.class);
        assertThat(rows.get(3).key()).isInstanceOf(TaskKey.class);
        assertThat(rows.get(3).taskKey().userId()).isEqualTo("job:prune-audit-log");

        assertThat(a.release(job)).isTrue();
        assertThat(a.lease(KEY).orElseThrow().owner()).contains(a.owner());
        assertThat(b.lease(prune).orElseThrow().owner()).contains(b.owner());
        assertThat(b.tryAcquire(JOB).orElseThrow().fence().epoch()).isEqualTo(2);
        assertThat(a.renew(task)).isTrue();
    }

    @Test
    void everyStoredKeyParsesBackToItsKind() {
        a.tryAcquire(KEY).orElseThrow();
        a.tryAcquire(JOB).orElseThrow();
        for (LeaseRecord r : a.leases()) {
            assertThat(LeaseKey.parse(r.key().asString())).isEqualTo(r.key());
        }
    }
}
