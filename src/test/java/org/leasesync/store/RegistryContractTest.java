package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.run.Checkpoint;
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
import org.leasesync.lease.ProcessStart;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.ManualTime;

/**
 * The registry contract: every backend (H2 in memory, H2 file, PostgreSQL) must pass it, for task
 * keys and job keys alike. Time is a {@link ManualTime}; no test sleeps.
 */
abstract class RegistryContractTest {

    static final Duration TTL = Duration.ofSeconds(60);
    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final JobKey JOB = JobKey.of("expire-idempotency-keys");

    LocalStore store;
    ManualTime time;
    TaskRegistry a;
    TaskRegistry b;

    abstract LocalStore open() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        store = open();
        time = new ManualTime();
        a = registry(owner("a"));
        b = registry(owner("b"));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    static OwnerId owner(String nonce) {
        return new OwnerId("test-host", ProcessHandle.current().pid(), 1, nonce);
    }

    TaskRegistry registry(OwnerId owner) {
        return new TaskRegistry(store.leases(), owner, TTL, time, OwnerLiveness.neverProvable());
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
        assertThat(a.leases()).extracting(r -> r.key().asString())
                .containsExactly("alice|course_sync", "alice|message_sync", "bob|course_sync");
    }

    @Test
    void otherOwnerCanNeitherRenewNorRelease() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        var forged = new org.leasesync.lease.Fence(KEY, b.owner(), lease.fence().epoch());
        assertThat(store.leases().renew(forged, TTL, time.now())).isFalse();
        assertThat(store.leases().release(forged, time.now())).isFalse();
        assertThat(a.lease(KEY).orElseThrow().owner()).contains(a.owner());
        assertThat(a.renew(lease)).isTrue();
    }

    @Test
    void unrenewedLeaseGoesToAnotherOwnerAfterOneTtlOfObservation() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty();              // b starts observing
        time.elapse(TTL.minusMillis(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();              // not yet one TTL
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
        assertThat(b.tryAcquire(KEY)).isEmpty();              // b and c have seen a hold it
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL.minusMillis(1));
        assertThat(a.release(first)).isTrue();
        HeldLease second = c.tryAcquire(KEY).orElseThrow();   // seen held before, free now: granted
        assertThat(second.fence().epoch()).isEqualTo(2);
        time.elapse(Duration.ofMillis(1));                    // b first saw a's row one TTL ago
        assertThat(b.tryAcquire(KEY)).as("c's lease is new to b: one TTL from now").isEmpty();
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
        assertThatThrownBy(lease::checkedFence).isInstanceOf(LeaseLostException.class)
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
        a.tryAcquire(KEY).orElseThrow();   // a dies right after
        time.jumpWall(Duration.ofHours(-5));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL);
        assertThat(b.tryAcquire(KEY)).isPresent();
    }

    @Test
    void disagreeingClocksDoNotMatter() {
        ManualTime bTime = new ManualTime(time.now().plus(Duration.ofHours(3)));
        TaskRegistry skewed = new TaskRegistry(store.leases(), owner("c"), TTL, bTime, OwnerLiveness.neverProvable());
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThat(skewed.tryAcquire(KEY)).isEmpty();
        bTime.elapse(TTL.dividedBy(2));
        time.elapse(TTL.dividedBy(2));
        assertThat(a.renew(lease)).isTrue();
        bTime.elapse(TTL.dividedBy(2));
        assertThat(skewed.tryAcquire(KEY)).isEmpty();   // heartbeat moved: observation restarted
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
        LeaseStore slow = new ForwardingLeaseStore(store.leases()) {
            @Override
            public Optional<LeaseRecord> read(LeaseKey key) {
                if (stalls.getAndDecrement() > 0) {
                    time.elapse(TTL.multipliedBy(6).dividedBy(10));   // the stall, on the monotonic clock too
                    assertThat(a.renew(held)).isTrue();               // the holder renews meanwhile
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
        assertThat(stalled.tryAcquire(KEY)).as("taken half a TTL after the holder renewed").isEmpty();
        assertThat(held.isValid()).isTrue();
        assertThat(a.lease(KEY).orElseThrow().epoch()).isEqualTo(1);
        time.elapse(TTL.dividedBy(2));   // now a whole TTL since the read that saw the last renewal
        assertThat(stalled.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    /** A lease store that forwards every call; tests override what they disturb. */
    static class ForwardingLeaseStore implements LeaseStore {
        private final LeaseStore d;

        ForwardingLeaseStore(LeaseStore d) {
            this.d = d;
        }

        @Override
        public Optional<LeaseRecord> tryGrant(LeaseKey key, OwnerId owner, Duration ttl, java.time.Instant now,
                                              Optional<LeaseRecord> takeOver) {
            return d.tryGrant(key, owner, ttl, now, takeOver);
        }

        @Override
        public Optional<LeaseRecord> grantIfFree(LeaseKey key, OwnerId owner, Duration ttl, java.time.Instant now) {
            return d.grantIfFree(key, owner, ttl, now);
        }

        @Override
        public Optional<LeaseRecord> grantIfNew(LeaseKey key, OwnerId owner, Duration ttl, java.time.Instant now) {
            return d.grantIfNew(key, owner, ttl, now);
        }

        @Override
        public boolean renew(Fence fence, Duration ttl, java.time.Instant now) {
            return d.renew(fence, ttl, now);
        }

        @Override
        public boolean release(Fence fence, java.time.Instant now) {
            return d.release(fence, now);
        }

        @Override
        public boolean raiseEpoch(Fence fence, long newEpoch, java.time.Instant now) {
            return d.raiseEpoch(fence, newEpoch, now);
        }

        @Override
        public Optional<LeaseRecord> read(LeaseKey key) {
            return d.read(key);
        }

        @Override
        public List<LeaseRecord> readAll() {
            return d.readAll();
        }
    }

    /**
     * The last successful run is the one with the highest epoch, not the latest stored end time: a
     * later run by a process whose clock runs 3 h behind (or after a clock step back) ends "earlier".
     */
    @Test
    void theLastSuccessfulRunIsTheNewestEpochWhateverTheClocksOfItsWriters() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(first.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(first.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());
        a.release(first);
        time.jumpWall(Duration.ofHours(-3));
        HeldLease second = b.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(second.fence(), "run-2", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(second.fence(), "run-2", RunStatus.SUCCEEDED, Optional.empty(), time.now());
        assertThat(store.history().lastSucceeded(KEY).orElseThrow().runId()).isEqualTo("run-2");
        assertThat(store.history().lastRun(KEY).orElseThrow().runId()).isEqualTo("run-2");
    }

    @Test
    void provablyDeadOwnerIsTakenOverAtOnce() {
        OwnerId ghost = new OwnerId("test-host", 999_999_999L, 1, "dead");
        TaskRegistry dead = registry(ghost);
        dead.tryAcquire(KEY).orElseThrow();
        TaskRegistry c = new TaskRegistry(store.leases(), owner("c"), TTL, time, o -> o.equals(ghost));
        assertThat(c.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void aReleaseIsSeenAtOnceAlsoByARegistryThatJustSawTheKeyHeld() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        assertThat(b.tryAcquire(KEY)).isEmpty();              // b read the row: held by a, live
        assertThat(b.tryAcquire(KEY)).isEmpty();              // within REREAD_AFTER: no read, still held
        assertThat(a.release(first)).isTrue();
        // same instant on b's clock: the conditional write grants the released key, no waiting
        assertThat(b.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
    }

    @Test
    void aHolderProvenDeadJustAfterAReadIsTakenOverOnceRereadAfterHasPassed() {
        OwnerId ghost = new OwnerId("test-host", 999_999_999L, 1, "dead");
        registry(ghost).tryAcquire(KEY).orElseThrow();
        java.util.concurrent.atomic.AtomicBoolean dead = new java.util.concurrent.atomic.AtomicBoolean();
        TaskRegistry c = new TaskRegistry(store.leases(), owner("c"), TTL, time, o -> o.equals(ghost) && dead.get());
        assertThat(c.tryAcquire(KEY)).isEmpty();              // read: alive
        dead.set(true);
        // within REREAD_AFTER of that read the answer comes from the failed conditional write alone
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(TaskRegistry.REREAD_AFTER.minusNanos(1));
        assertThat(c.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofNanos(1));                      // the bound: read again, proven dead, taken over
        assertThat(c.tryAcquire(KEY).orElseThrow().fence().epoch()).isEqualTo(2);
        assertThat(c.lease(KEY).orElseThrow().owner()).contains(c.owner());
    }

    @Test
    void processTableProvesAMissingProcessDeadButNotALiveOne() {
        String machine = OwnerId.localMachine();
        assertThat(machine).contains(":pidns");
        OwnerLiveness table = OwnerLiveness.processTable(machine);
        OwnerId self = OwnerId.forCurrentProcess();
        ProcessStart.SinceBoot start = (ProcessStart.SinceBoot) self.start();
        assertThat(table.isProvablyDead(self)).isFalse();
        long gone = Integer.MAX_VALUE - 7L;   // above pid_max: never a process
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, start, "bb"))).isTrue();
        assertThat(table.isProvablyDead(new OwnerId("other-host:pidns1", gone, start, "bb"))).isFalse();
        // same host name, another pid namespace (a container or sandbox): its pids mean nothing here
        assertThat(table.isProvablyDead(new OwnerId(machine + "0", gone, start, "bb"))).isFalse();
        // same pid, other start tick: a recycled pid
        ProcessStart earlier = new ProcessStart.SinceBoot(start.ticks() - 100, start.bootId(), start.timeNamespace());
        assertThat(table.isProvablyDead(new OwnerId(machine, self.pid(), earlier, "cc"))).isTrue();
        // another boot (or another machine of the same name): not provable, whatever its pid
        ProcessStart otherBoot = new ProcessStart.SinceBoot(start.ticks(), "0".repeat(32), start.timeNamespace());
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, otherBoot, "dd"))).isFalse();
        // another time namespace: its ticks are offset, not comparable
        ProcessStart otherTimeNs = new ProcessStart.SinceBoot(start.ticks(), start.bootId(), start.timeNamespace() + 1);
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, otherTimeNs, "ee"))).isFalse();
        // the earlier form (start in epoch millis, derived from btime): never provable, even for a missing pid
        assertThat(table.isProvablyDead(new OwnerId(machine, gone, 1_764_000_000_000L, "ff"))).isFalse();
        assertThat(table.isProvablyDead(new OwnerId(machine, self.pid(), 1_764_000_000_000L, "ff"))).isFalse();
        // without a pid namespace in the machine string nothing is provable
        assertThat(OwnerLiveness.processTable("this-host").isProvablyDead(new OwnerId("this-host", gone, start, "bb")))
                .isFalse();
    }

    @Test
    void guardedWriteWithStaleEpochIsRefusedAndWritesNothing() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(old.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(TTL);
        HeldLease fresh = b.tryAcquire(KEY).orElseThrow();
        Checkpoint cp = checkpoint("run-1", old.fence().epoch(), "pulling", "c-9");
        assertThatThrownBy(() -> store.runs().saveCheckpoint(old.fence(), cp))
                .isInstanceOf(LeaseLostException.class).hasMessageContaining("alice|course_sync");
        assertThatThrownBy(() -> store.runs().enterStage(old.fence(), "run-1", Stage.PUSHING, time.now()))
                .isInstanceOf(LeaseLostException.class);
        assertThat(store.history().checkpoint(KEY)).isEmpty();
        assertThat(store.history().run("run-1").orElseThrow().stage()).contains(Stage.PULLING);
        store.runs().saveCheckpoint(fresh.fence(), checkpoint("run-2", fresh.fence().epoch(), "pulling", "c-10"));
        assertThat(store.history().checkpoint(KEY).orElseThrow().pullCursor()).contains("c-10");
    }

    @Test
    void theStartOfARunInOneTransactionCommitsAllOfItOrNothing() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        assertThatThrownBy(() -> store.runs().inOneTransaction(lease.fence(), "start", tx -> {
            tx.insertRun(lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
            tx.saveCheckpoint(lease.fence(), checkpoint("run-1", lease.fence().epoch(), "pulling", "c-1"));
            assertThat(tx.runningRun(KEY)).map(RunRecord::runId).contains("run-1");   // sees its own writes
            assertThat(tx.highestEpoch(KEY)).isEqualTo(lease.fence().epoch());
            throw new IllegalStateException("boom after two writes");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom after two writes");
        assertThat(store.history().run("run-1")).isEmpty();
        assertThat(store.history().checkpoint(KEY)).isEmpty();
        assertThat(store.runs().highestEpoch(KEY)).isZero();

        String id = store.runs().inOneTransaction(lease.fence(), "start", tx -> {
            tx.insertRun(lease.fence(), "run-2", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
            tx.recordMergedTrigger("run-2", TaskSource.FOREGROUND, time.now());
            return "run-2";
        });
        RunRecord r = store.history().run(id).orElseThrow();
        assertThat(r.firstSource()).isEqualTo(TaskSource.MANUAL);
        assertThat(r.mergedSources()).containsExactly(TaskSource.FOREGROUND);
        assertThat(store.runs().highestEpoch(KEY)).isEqualTo(lease.fence().epoch());
    }

    @Test
    void theStartOfARunInOneTransactionIsRefusedWithAStaleFenceAndWritesNothing() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        time.elapse(TTL);
        assertThat(b.tryAcquire(KEY)).isEmpty();   // first sighting of a's row
        time.elapse(TTL);
        b.tryAcquire(KEY).orElseThrow();
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> store.runs().inOneTransaction(old.fence(), "start", tx -> {
            ran.incrementAndGet();
            tx.insertRun(old.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
            return null;
        })).isInstanceOf(LeaseLostException.class).hasMessageContaining("alice|course_sync");
        assertThat(ran).hasValue(0);
        assertThat(store.history().run("run-1")).isEmpty();
    }

    @Test
    void runRecordKeepsSourcesStagesAndResult() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(lease.fence(), "run-1", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        time.elapse(Duration.ofSeconds(1));
        store.runs().recordMergedTrigger("run-1", TaskSource.MANUAL, time.now());
        store.runs().recordMergedTrigger("run-1", TaskSource.FOREGROUND, time.now());
        store.runs().enterStage(lease.fence(), "run-1", Stage.PUSHING, time.now());
        store.runs().enterStage(lease.fence(), "run-1", Stage.DONE, time.now());
        store.runs().finishRun(lease.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());
        RunRecord r = store.history().lastRun(KEY).orElseThrow();
        assertThat(r.firstSource()).isEqualTo(TaskSource.SCHEDULE);
        assertThat(r.mergedSources()).containsExactly(TaskSource.MANUAL, TaskSource.FOREGROUND);
        assertThat(r.stages()).extracting(RunRecord.StageEntry::stage).containsExactly("pulling", "pushing", "done");
        assertThat(r.status()).contains(RunStatus.SUCCEEDED);
        assertThat(r.epoch()).isEqualTo(1);
        assertThat(r.owner()).isEqualTo(a.owner().asString());
        assertThat(r.endedAt()).contains(time.now());
        assertThat(store.history().runningRun(KEY)).isEmpty();
        assertThat(store.history().history(KEY, 10)).hasSize(1);
        assertThat(store.history().lastRunPerKey()).extracting(RunRecord::runId).containsExactly("run-1");
    }

    @Test
    void aRunKeepsTheProgramAndServerOfTheStoreThatStartedItAndOlderRunsHaveNone() {
        HeldLease first = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(first.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().finishRun(first.fence(), "run-1", RunStatus.FAILED, Optional.of("unreachable"), time.now());
        a.release(first);
        time.elapse(Duration.ofSeconds(1));
        org.leasesync.run.RunOrigin origin = new org.leasesync.run.RunOrigin("leasesync sync",
                "http://127.0.0.1:9/, http://127.0.0.1:10/");
        HeldLease second = b.tryAcquire(KEY).orElseThrow();
        store.runs().withOrigin(origin).insertRun(second.fence(), "run-2", TaskSource.MANUAL, Stage.PULLING, time.now(),
                Optional.empty());
        store.runs().finishRun(second.fence(), "run-2", RunStatus.FAILED, Optional.of("unreachable"), time.now());
        RunRecord last = store.history().lastRun(KEY).orElseThrow();
        assertThat(last.runId()).isEqualTo("run-2");
        assertThat(last.origin()).contains(origin);
        assertThat(last.owner()).isEqualTo(b.owner().asString());
        assertThat(store.history().run("run-1").orElseThrow().origin()).isEmpty();
        assertThat(store.history().lastRunPerKey()).extracting(RunRecord::origin).containsExactly(Optional.of(origin));
    }

    @Test
    void corruptStageTextIsReadBackAsUnknownNotAsACrash() throws Exception {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        store.runs().insertRun(lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        store.runs().saveCheckpoint(lease.fence(), checkpoint("run-1", 1, "pulling", null));
        store.database().query("corrupt", c -> {
            c.createStatement().executeUpdate("UPDATE run SET stage = 'teleporting'");
            return c.createStatement().executeUpdate("UPDATE checkpoint SET stage = 'half-done'");
        });
        RunRecord r = store.history().run("run-1").orElseThrow();
        assertThat(r.stage()).isEmpty();
        assertThat(r.stageText()).isEqualTo("teleporting");
        Checkpoint cp = store.history().checkpoint(KEY).orElseThrow();
        assertThat(cp.stage()).isEmpty();
        assertThat(cp.stageText()).isEqualTo("half-done");
    }

    /** A lease row with an owner id nobody can parse failed every grant of its key, forever. */
    @Test
    void aLeaseRowWithAnUnreadableOwnerIsListedAndTakenOverAfterOneTtlLikeAnySilentHolder() {
        HeldLease old = a.tryAcquire(KEY).orElseThrow();
        store.database().query("corrupt", c -> c.createStatement()
                .executeUpdate("UPDATE lease SET owner_id = 'not an owner id' WHERE task_key = '" + KEY.asString() + "'"));
        LeaseRecord row = b.lease(KEY).orElseThrow();
        assertThat(row.isHeld()).isTrue();
        assertThat(row.hasUnreadableOwner()).isTrue();
        assertThat(row.ownerText()).isEqualTo("not an owner id");
        assertThat(store.leases().readAll()).extracting(LeaseRecord::ownerText).containsExactly("not an owner id");

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
        store.database().query("corrupt", c -> c.createStatement()
                .executeUpdate("UPDATE lease SET ttl_ms = " + Duration.ofDays(3650).toMillis()));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofDays(1).minusSeconds(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        time.elapse(Duration.ofSeconds(1));
        assertThat(b.tryAcquire(KEY)).isPresent();
    }

    @Test
    void checkpointRoundTripsAllPositionFields() {
        HeldLease lease = a.tryAcquire(KEY).orElseThrow();
        Checkpoint cp = new Checkpoint(KEY, "run-1", 1, Optional.of(Stage.PUSHING), "pushing", Optional.of("cur-7"),
                Optional.of("batch-1"), Optional.of("idem-1"), List.of("c1", "c2"), Optional.of(time.now()), time.now());
        store.runs().saveCheckpoint(lease.fence(), cp);
        assertThat(store.history().checkpoint(KEY)).contains(cp);
        assertThat(store.history().checkpoints()).containsExactly(cp);
    }

    // ---- job keys: the same lease rules, side by side with task keys ----

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
    void unrenewedJobLeaseIsTakenOverAfterOneTtlAndTheOldHolderCanWriteNothing() {
        JdbcGuard guard = new JdbcGuard(store.database());
        HeldLease old = a.tryAcquire(JOB).orElseThrow();
        String written = guard.inTransaction(old.fence(), "write under the job", c -> "written");
        assertThat(written).isEqualTo("written");
        assertThat(b.tryAcquire(JOB)).isEmpty();              // b starts observing
        time.elapse(TTL.minusMillis(1));
        assertThat(b.tryAcquire(JOB)).isEmpty();
        time.elapse(Duration.ofMillis(1));
        HeldLease taken = b.tryAcquire(JOB).orElseThrow();
        assertThat(taken.fence().epoch()).isEqualTo(2);
        AtomicInteger staleWorkRan = new AtomicInteger();
        assertThatThrownBy(() -> guard.inTransaction(old.fence(), "write under the old job lease", c -> staleWorkRan.incrementAndGet()))
                .isInstanceOf(LeaseLostException.class).hasMessageContaining("job:expire-idempotency-keys")
                .hasMessageContaining("epoch 1");
        assertThat(staleWorkRan).hasValue(0);
        Integer two = guard.inTransaction(taken.fence(), "write under the new job lease", c -> 2);
        assertThat(two).isEqualTo(2);
        assertThat(store.leases().renew(old.fence(), TTL, time.now())).isFalse();   // the store refuses the old epoch
        assertThat(a.renew(old)).isFalse();
        assertThat(old.lostSignal()).isCompleted();
        assertThat(old.isValid()).isFalse();
        assertThat(a.release(old)).isFalse();
        assertThat(b.lease(JOB).orElseThrow().owner()).contains(b.owner());
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
        assertThat(store.leases().renew(forged, TTL, time.now())).isFalse();
        assertThat(store.leases().release(forged, time.now())).isFalse();
        assertThat(a.lease(JOB).orElseThrow().epoch()).isEqualTo(1);
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void provablyDeadJobHolderIsTakenOverAtOnce() {
        OwnerId ghost = new OwnerId("test-host", 999_999_999L, 1, "dead");
        registry(ghost).tryAcquire(JOB).orElseThrow();
        TaskRegistry c = new TaskRegistry(store.leases(), owner("c"), TTL, time, o -> o.equals(ghost));
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
        assertThat(List.of(task, job, look, pruneLease)).allSatisfy(l -> assertThat(l.fence().epoch()).isEqualTo(1));
        assertThat(b.tryAcquire(KEY)).isEmpty();
        assertThat(b.tryAcquire(JOB)).isEmpty();
        assertThat(a.tryAcquire(prune)).isEmpty();
        assertThat(a.tryAcquire(lookalike)).isEmpty();

        List<LeaseRecord> rows = a.leases();
        assertThat(rows).extracting(r -> r.key().asString()).containsExactly("alice|course_sync",
                "job:expire-idempotency-keys", "job:prune-audit-log", "job:prune-audit-log|course_sync");
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
    void aJobKeysFenceIsRefusedByTheRunStoreNamingTheKeyAndWritesNothing() {
        HeldLease job = a.tryAcquire(JOB).orElseThrow();
        assertThatThrownBy(() -> store.runs().insertRun(job.fence(), "run-j", TaskSource.SCHEDULE, Stage.PULLING,
                time.now(), Optional.empty()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("job:expire-idempotency-keys")
                .hasMessageContaining("not a task key");
        assertThatThrownBy(() -> store.runs().finishRun(job.fence(), "run-j", RunStatus.FAILED, Optional.empty(), time.now()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("job:expire-idempotency-keys");
        assertThatThrownBy(() -> job.fence().taskKey()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job:expire-idempotency-keys");
        assertThat(store.history().run("run-j")).isEmpty();
        assertThat(store.history().lastRunPerKey()).isEmpty();
        assertThat(a.lease(JOB).orElseThrow().owner()).contains(a.owner());
    }

    @Test
    void everyStoredKeyParsesBackToItsKind() {
        a.tryAcquire(KEY).orElseThrow();
        a.tryAcquire(JOB).orElseThrow();
        for (LeaseRecord r : a.leases()) {
            assertThat(LeaseKey.parse(r.key().asString())).isEqualTo(r.key());
        }
    }

    Checkpoint checkpoint(String runId, long epoch, String stage, String cursor) {
        return new Checkpoint(KEY, runId, epoch, Stage.tryParse(stage), stage, Optional.ofNullable(cursor),
                Optional.empty(), Optional.empty(), List.of(), Optional.empty(), time.now());
    }
}
