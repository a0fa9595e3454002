package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.Fence;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseLoss;
import org.leasesync.lease.LeaseLostException;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RecoveryDecision;
import org.leasesync.run.RunContext;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.InMemoryLeaseStore;
import org.leasesync.testing.ManualTime;

/**
 * The decisions of the pull and push stages and the worker, on an in-memory sync server (pages by
 * cursor, idempotency keys remembered with their answers, fencing tokens per key) and in-memory
 * local data whose writes are fenced against the in-memory lease store. Transport failures are
 * injected one request at a time; nothing sleeps (the back-off goes to a recording sleeper).
 */
class SyncStagesTest {

    private static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final SyncSettings SETTINGS =
            new SyncSettings(2, 10, 3, Duration.ofMillis(200), Duration.ofHours(24));

    private final ManualTime time = new ManualTime();
    private final InMemoryLeaseStore leases = new InMemoryLeaseStore();
    private final Server server = new Server();
    private final Local local = new Local();
    private final List<Duration> slept = new ArrayList<>();
    private TaskRegistry registry;

    @BeforeEach
    void setUp() {
        registry =
                new TaskRegistry(leases, new OwnerId("test-host", 7, 1, "a"), TTL, time, OwnerLiveness.neverProvable());
    }

    private HeldLease lease() {
        return registry.tryAcquire(KEY).orElseThrow();
    }

    private OutboxEntry edit(long seq, String recordId) {
        return new OutboxEntry(seq, "change-" + seq, recordId, 0, false, "{\"n\":" + seq + "}", time.now());
    }

    @Test
    void thePullAdvancesTheCursorPageByPageCarryingTheEpochAndThePushPosition() {
        server.records.put("r1", 1L);
        server.records.put("r2", 2L);
        server.records.put("r3", 3L);
        local.pushed = Optional.of("p-9");
        HeldLease lease = lease();
        Optional<ResyncSummary> summary = new PullStage(server, local, SETTINGS).pull(new Ctx(lease));
        assertThat(summary).isEmpty();
        assertThat(server.pulls).containsExactly("cursor= pushed=p-9 token=1", "cursor=2 pushed=p-9 token=1");
        assertThat(local.cursor).contains("3");
        assertThat(local.records).containsOnlyKeys("r1", "r2", "r3");
    }

    @Test
    void aRefusedCursorStartsOneFullDownloadFromTheBeginningAndASecondRefusalFailsTheRun() {
        server.records.put("r1", 1L);
        local.cursor = Optional.of("gone");
        server.refuseCursors = 1;
        HeldLease lease = lease();
        new PullStage(server, local, SETTINGS).pull(new Ctx(lease));
        assertThat(local.resets).isEqualTo(1);
        assertThat(server.pulls).containsExactly("cursor=gone pushed= token=1", "cursor= pushed= token=1");
        assertThat(local.cursor).contains("1");

        local.cursor = Optional.of("gone");
        server.refuseCursors = 2;
        assertThatThrownBy(() -> new PullStage(server, local, SETTINGS).pull(new Ctx(lease)))
                .isInstanceOf(RemoteException.class)
                .hasMessageContaining("invalid_cursor");
        assertThat(local.resets).as("once per run").isEqualTo(2);
    }

    @Test
    void anAmbiguousPushThatArrivedIsConfirmedByAQueryNotSentAgain() throws Exception {
        local.outbox.add(edit(1, "r1"));
        local.outbox.add(edit(2, "r2"));
        server.loseNextAnswer = true;
        PushStage.Pushed pushed = new PushStage(server, local, SETTINGS, slept::add).push(new Ctx(lease()));
        assertThat(pushed).isEqualTo(new PushStage.Pushed(2, 0));
        assertThat(server.log)
                .containsExactly(
                        "push " + local.begun.get(0).idempotencyKey() + " [change-1, change-2]",
                        "status " + local.begun.get(0).idempotencyKey());
        assertThat(server.applied).containsExactly("change-1", "change-2");
        assertThat(local.outbox).isEmpty();
        assertThat(slept).isEmpty();
    }

    @Test
    void anAmbiguousPushThatNeverArrivedIsSentAgainUnderTheSameKeyWithTheSameBody() throws Exception {
        local.outbox.add(edit(1, "r1"));
        server.dropNextRequest = true;
        new PushStage(server, local, SETTINGS, slept::add).push(new Ctx(lease()));
        String key = local.begun.get(0).idempotencyKey();
        assertThat(local.begun).hasSize(1);
        assertThat(server.log)
                .containsExactly("push " + key + " [change-1]", "status " + key, "push " + key + " [change-1]");
        assertThat(server.applied).containsExactly("change-1");
        assertThat(local.confirmed).containsExactly(key);
    }

    @Test
    void aBatchLeftInFlightByAnEarlierRunIsQueriedBeforeAnythingIsSent() throws Exception {
        OutboxEntry e = edit(1, "r1");
        local.outbox.add(e);
        server.push(KEY, new PushBatch("b-old", "key-old", List.of(e)), 1, "run-0"); // arrived, answer lost
        server.log.clear();
        Checkpoint cp = new Checkpoint(
                KEY,
                "run-0",
                1,
                Optional.of(Stage.PUSHING),
                "pushing",
                Optional.empty(),
                Optional.of("b-old"),
                Optional.of("key-old"),
                List.of("change-1"),
                Optional.of(time.now()),
                time.now());
        PushStage.Pushed pushed = new PushStage(server, local, SETTINGS, slept::add).push(new Ctx(lease(), cp));
        assertThat(pushed.confirmed()).isEqualTo(1);
        assertThat(server.log).containsExactly("status key-old");
        assertThat(local.begun).isEmpty();
        assertThat(local.outbox).isEmpty();
    }

    @Test
    void aStaleRunsWritesAreRefusedLocallyAndItsRequestsByTheServer() throws Exception {
        server.records.put("r1", 1L);
        HeldLease old = lease();
        OwnerId b = new OwnerId("test-host", 8, 1, "b");
        TaskRegistry other = new TaskRegistry(leases, b, TTL, time, o -> !o.equals(b));
        HeldLease taken = other.tryAcquire(KEY).orElseThrow();
        assertThat(taken.fence().epoch()).isEqualTo(2);
        assertThat(old.isValid()).as("the old holder has not noticed yet").isTrue();
        SyncWorker worker = new SyncWorker(server, local, SETTINGS, slept::add);
        assertThatThrownBy(() -> worker.run(new Ctx(old))).isInstanceOf(LeaseLostException.class);
        assertThat(local.cursor).isEmpty();
        assertThat(local.records).isEmpty();

        assertThat(worker.run(new Ctx(taken)).status()).isEqualTo(org.leasesync.run.RunStatus.SUCCEEDED);
        assertThat(local.cursor).contains("1");
        // the server has seen token 2 now: the old run's next request is refused there too
        RunOutcome stale = new SyncWorker(server, new Local(), SETTINGS, slept::add).run(new Ctx(old));
        assertThat(stale.epochAtLeast()).isEqualTo(3);
        assertThat(stale.message()).hasValueSatisfying(m -> assertThat(m).contains("newer fencing token"));
    }

    /** A run's context over a held lease; a checkpoint at start makes it a resumed run. */
    private final class Ctx implements RunContext {
        private final HeldLease lease;
        private final Optional<Checkpoint> checkpoint;

        Ctx(HeldLease lease) {
            this(lease, null);
        }

        Ctx(HeldLease lease, @Nullable Checkpoint checkpoint) {
            this.lease = lease;
            this.checkpoint = Optional.ofNullable(checkpoint);
        }

        @Override
        public String runId() {
            return "run-1";
        }

        @Override
        public TaskKey key() {
            return KEY;
        }

        @Override
        public TaskSource source() {
            return TaskSource.MANUAL;
        }

        @Override
        public HeldLease lease() {
            return lease;
        }

        @Override
        public Optional<RecoveryDecision> recovery() {
            return Optional.empty();
        }

        @Override
        public Optional<Checkpoint> checkpointAtStart() {
            return checkpoint;
        }

        @Override
        public boolean checkAgain() {
            return false;
        }

        @Override
        public boolean discardUnconfirmed() {
            return false;
        }

        @Override
        public void enterStage(Stage stage) {
            local.check(lease.fence());
        }

        @Override
        public void progress(String text) {}

        @Override
        public TimeSource time() {
            return time;
        }
    }

    /**
     * The sync server's rules that the stages rely on: records paged by version (the cursor is the
     * last version given), the next {@code refuseCursors} pulls refused as {@code invalid_cursor}, each idempotency key applied once and its
     * answer kept, and a fencing token per key that only goes up.
     */
    private static final class Server implements SyncRemote {
        final Map<String, Long> records = new LinkedHashMap<>();
        final Map<String, PushResponse> answers = new LinkedHashMap<>();
        final List<String> applied = new ArrayList<>();
        final List<String> pulls = new ArrayList<>();
        final List<String> log = new ArrayList<>();
        long highestToken;
        int refuseCursors;
        boolean loseNextAnswer;
        boolean dropNextRequest;

        private void fence(long token) {
            if (token < highestToken) {
                throw new RemoteException(
                        RemoteException.Kind.HTTP,
                        409,
                        "stale_fencing_token",
                        "",
                        -1,
                        "stale",
                        "stale fencing token " + token,
                        "",
                        highestToken,
                        null);
            }
            highestToken = token;
        }

        @Override
        public PullPage pull(
                TaskKey key,
                Optional<String> cursor,
                Optional<String> pushedPosition,
                int limit,
                long fencingToken,
                String runId) {
            pulls.add(
                    "cursor=" + cursor.orElse("") + " pushed=" + pushedPosition.orElse("") + " token=" + fencingToken);
            fence(fencingToken);
            if (refuseCursors > 0) {
                refuseCursors--;
                throw new RemoteException(
                        RemoteException.Kind.HTTP,
                        400,
                        "invalid_cursor",
                        "went_back",
                        -1,
                        "refused",
                        "invalid_cursor",
                        null);
            }
            long after = cursor.map(Long::parseLong).orElse(0L);
            List<RemoteRecord> page = records.entrySet().stream()
                    .filter(e -> e.getValue() > after)
                    .limit(limit)
                    .map(e -> new RemoteRecord(e.getKey(), e.getValue(), false, "{}", Instant.EPOCH))
                    .toList();
            long last = page.isEmpty() ? after : page.get(page.size() - 1).version();
            boolean more = records.values().stream().anyMatch(v -> v > last);
            return new PullPage(page, Long.toString(last), more);
        }

        @Override
        public PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId) {
            log.add("push " + batch.idempotencyKey() + " " + batch.changeIds());
            if (dropNextRequest) {
                dropNextRequest = false;
                throw ambiguous();
            }
            fence(fencingToken);
            PushResponse answer = answers.computeIfAbsent(batch.idempotencyKey(), k -> {
                applied.addAll(batch.changeIds());
                return new PushResponse(
                        batch.entries().stream()
                                .map(e -> new PushResult(e.changeId(), e.recordId(), true, 1, false, 0, false, ""))
                                .toList(),
                        Optional.of("p-" + applied.size()));
            });
            if (loseNextAnswer) {
                loseNextAnswer = false;
                throw ambiguous();
            }
            return answer;
        }

        @Override
        public PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
            log.add("status " + idempotencyKey);
            PushResponse r = answers.get(idempotencyKey);
            return r == null
                    ? new PushStatus(PushStatus.State.UNKNOWN, Optional.empty(), 0)
                    : new PushStatus(PushStatus.State.COMPLETED, Optional.of(r), 200);
        }

        private static RemoteException ambiguous() {
            return new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, "timed out", "timed out", null);
        }
    }

    /**
     * Local data in memory whose every write first checks the fence against the lease store, as
     * the SQL store's guarded transactions do: a write under a fence that is no longer the lease
     * row's is refused and changes nothing.
     */
    private final class Local implements LocalData {
        final Map<String, Long> records = new LinkedHashMap<>();
        final List<OutboxEntry> outbox = new ArrayList<>();
        final List<PushBatch> begun = new ArrayList<>();
        final List<String> confirmed = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        Optional<String> pushed = Optional.empty();
        int resets;

        void check(Fence fence) {
            boolean current = leases.read(fence.key())
                    .filter(r -> r.isHeld() && r.owner().isPresent())
                    .map(r -> r.fence().equals(fence))
                    .orElse(false);
            if (!current) {
                throw new LeaseLostException(fence, LeaseLoss.TAKEN_OVER, "the lease row has moved on");
            }
        }

        @Override
        public List<OutboxEntry> pendingOutbox(TaskKey key, int limit) {
            return List.copyOf(outbox.subList(0, Math.min(limit, outbox.size())));
        }

        @Override
        public int pendingCount(TaskKey key) {
            return outbox.size();
        }

        @Override
        public List<OutboxEntry> outboxEntries(TaskKey key, List<String> changeIds) {
            return outbox.stream().filter(e -> changeIds.contains(e.changeId())).toList();
        }

        @Override
        public void applyPullPage(Fence fence, String runId, PullPage page) {
            check(fence);
            page.records().forEach(r -> records.put(r.id(), r.version()));
            cursor = Optional.of(page.nextCursor());
        }

        @Override
        public void beginPush(Fence fence, String runId, PushBatch batch) {
            check(fence);
            begun.add(batch);
        }

        @Override
        public void confirmPush(Fence fence, String runId, PushBatch batch, PushResponse response) {
            check(fence);
            List<String> ids =
                    response.results().stream().map(PushResult::changeId).toList();
            outbox.removeIf(e -> ids.contains(e.changeId()));
            response.position().ifPresent(p -> pushed = Optional.of(p));
            confirmed.add(batch.idempotencyKey());
        }

        @Override
        public boolean rejectEntry(Fence fence, String runId, OutboxEntry entry, String reason) {
            check(fence);
            return outbox.remove(entry);
        }

        @Override
        public void markDone(Fence fence, String runId) {
            check(fence);
        }

        @Override
        public void resetForResync(Fence fence, String runId, String reason) {
            check(fence);
            resets++;
            records.clear();
            cursor = Optional.empty();
            pushed = Optional.empty();
        }

        @Override
        public Optional<ResyncSummary> finishResync(Fence fence, String runId) {
            check(fence);
            return Optional.empty();
        }

        @Override
        public Optional<String> pushedPosition(TaskKey key) {
            return pushed;
        }

        @Override
        public void discardInFlight(Fence fence, String runId) {
            check(fence);
        }

        @Override
        public Optional<String> pullCursor(TaskKey key) {
            return cursor;
        }
    }
}
