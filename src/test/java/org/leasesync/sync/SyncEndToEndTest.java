package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.ManualTime;

/** The client against the real reference server on loopback, with real H2 (and PostgreSQL, in a subclass). */
class SyncEndToEndTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    ReferenceServer server;
    LocalStore store;
    ClientStack client;

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
        store = openStore();
        client = new ClientStack(store, server.baseUrl(), tokens());
    }

    /** A fresh local store; the PostgreSQL subclass gives one on a real PostgreSQL. */
    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    Map<String, String> tokens() {
        return Map.of("alice", server.tokenFor("alice"), "bob", server.tokenFor("bob"));
    }

    @AfterEach
    void tearDown() {
        client.close();
        store.close();
        server.close();
    }

    @Test
    void fullSyncOfDemoDataForBothUsersAndAllScopesThenASecondSyncPullsNothingNew() throws Exception {
        for (String user : List.of("alice", "bob")) {
            for (Scope scope : Scope.values()) {
                TaskKey key = new TaskKey(user, scope);
                RunResult r = client.sync(key, TaskSource.MANUAL);
                assertThat(r.status()).as("%s %s", key, r.message()).isEqualTo(RunStatus.SUCCEEDED);
                assertThat(client.edits.records(key)).as("records of %s", key).isNotEmpty();
            }
        }
        var courses = client.edits.records(ALICE);
        assertThat(courses).allSatisfy(rec -> assertThat(rec.payloadJson()).contains("title"));
        assertThat(client.edits.records(TaskKey.of("bob", "backup"))).hasSize(1);
        String cursor =
                store.history().checkpoint(ALICE).orElseThrow().pullCursor().orElseThrow();

        long before = server.stats().requests();
        RunResult again = client.sync(ALICE, TaskSource.SCHEDULE);
        assertThat(again.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.records(ALICE)).isEqualTo(courses);
        Checkpoint cp = store.history().checkpoint(ALICE).orElseThrow();
        assertThat(cp.pullCursor()).contains(cursor);
        assertThat(cp.stage()).contains(Stage.DONE);
        assertThat(server.stats().requests() - before).isEqualTo(1); // one empty pull, no push
    }

    @Test
    void localEditIsPushedOnceAndLeavesTheOutboxOnlyWhenConfirmed() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        String changeId = client.edits.addEdit(ALICE, "course-new", "{\"title\":\"Topology\",\"progress\":0.1}", false);
        assertThat(client.edits.pendingCount(ALICE)).isEqualTo(1);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.pendingCount(ALICE)).isZero();
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(changeId, 1);
        assertThat(client.edits.record(ALICE, "course-new").orElseThrow().version())
                .isEqualTo(1);
    }

    @Test
    void dropAfterApplyIsConfirmedByQueryAndAppliedExactlyOnce() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        List<String> ids = List.of(
                client.edits.addEdit(ALICE, "a1", "{\"title\":\"A1\"}", false),
                client.edits.addEdit(ALICE, "a2", "{\"title\":\"A2\"}", false));
        server.faults().setDropAfterApply(1);
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.pendingCount(ALICE)).isZero();
        for (String id : ids) {
            assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1);
        }
        assertThat(server.stats().pushes()).isEqualTo(1); // queried, never resent
    }

    @Test
    void delayAfterApplyBeyondTheReadTimeoutIsConfirmedByQueryAndAppliedOnce() throws Exception {
        client.close();
        client = new ClientStack(
                store,
                server.baseUrl(),
                tokens(),
                TimeSource.system(),
                new SyncSettings(500, 100, 8, Duration.ofMillis(250), Duration.ofHours(24)),
                new HttpSettings(Duration.ofSeconds(2), Duration.ofMillis(400), Duration.ofSeconds(5)));
        client.sync(ALICE, TaskSource.MANUAL);
        String id = client.edits.addEdit(ALICE, "slow", "{\"title\":\"Slow\"}", false);
        server.faults().setDelayAfterApply(Duration.ofMillis(1200));
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1);
        assertThat(client.edits.pendingCount(ALICE)).isZero();
    }

    @Test
    void failedPushKeepsTheOutboxAndTheNextRunQueriesTheSameKeyBeforeResending() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        String id = client.edits.addEdit(ALICE, "f1", "{\"title\":\"F\"}", false);
        server.faults().setFailPush(1);
        RunResult failed = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.message().orElseThrow()).contains("the sync server failed (HTTP 500");
        assertThat(client.edits.pendingCount(ALICE)).isEqualTo(1);
        String key =
                store.history().checkpoint(ALICE).orElseThrow().idempotencyKey().orElseThrow();
        RunResult retried = client.sync(ALICE, TaskSource.RETRY);
        assertThat(retried.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1);
        assertThat(store.history().checkpoint(ALICE).orElseThrow().idempotencyKey())
                .isEmpty();
        assertThat(key).isNotBlank();
    }

    @Test
    void conflictKeepsTheLocalEditAndNeverOverwritesTheServer() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        var rec = client.edits.records(ALICE).get(0);
        // another device changes the record first
        LocalStore other = openStore();
        try (ClientStack device2 = new ClientStack(other, server.baseUrl(), tokens())) {
            device2.sync(ALICE, TaskSource.MANUAL);
            device2.edits.addEdit(ALICE, rec.id(), "{\"title\":\"theirs\"}", false);
            assertThat(device2.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        } finally {
            other.close();
        }
        String mine = client.edits.addEdit(ALICE, rec.id(), "{\"title\":\"mine\"}", false);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        JdbcLocalEdits.OutboxItem conflict = client.edits.outbox(ALICE).get(0);
        assertThat(conflict.changeId()).isEqualTo(mine);
        assertThat(conflict.isConflict()).isTrue();
        assertThat(conflict.serverPayloadJson()).contains("theirs");
        assertThat(client.edits.record(ALICE, rec.id()).orElseThrow().payloadJson())
                .contains("theirs");
        assertThat(server.stats().appliedIn("alice", "course_sync")).doesNotContainKey(mine);
        // keep mine: rebased and pushed
        assertThat(client.edits.keepMine(ALICE, mine)).isTrue();
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(mine, 1);
    }

    @Test
    void aliceTokenOnBobsPathsIsRefusedAndAliceRunNeverWritesBobsRows() throws Exception {
        client.close();
        client = new ClientStack(
                store, server.baseUrl(), Map.of("alice", server.tokenFor("alice"), "bob", server.tokenFor("alice")));
        TaskKey bob = TaskKey.of("bob", "course_sync");
        RunResult refused = client.sync(bob, TaskSource.MANUAL);
        assertThat(refused.status()).isEqualTo(RunStatus.FAILED);
        assertThat(refused.message().orElseThrow()).contains("refused access").contains("403");
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.records(bob)).isEmpty();
        assertThat(client.edits.records(ALICE)).isNotEmpty();
    }

    @Test
    void throttledServerFailsTheRunWithItsRetryAfterAndKeepsTheOutbox() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        client.edits.addEdit(ALICE, "t1", "{\"title\":\"T\"}", false);
        server.faults().set(new FaultSettings(0, 0, 0, 0, 1));
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.FAILED);
        assertThat(r.message().orElseThrow()).isEqualTo("the sync server is busy (HTTP 429)");
        assertThat(client.edits.pendingCount(ALICE)).isEqualTo(1);
        assertThat(client.sync(ALICE, TaskSource.RETRY).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.pendingCount(ALICE)).isZero();
    }

    @Test
    void aCursorFromAnotherServerDatabaseMakesTheClientDownloadEverythingAgainKeepingTheOutbox() throws Exception {
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        String mine = client.edits.addEdit(ALICE, "course-1", "{\"title\":\"mine\"}", false);
        client.close();
        server.close();
        server = ReferenceServer.start(ServerConfig.defaults()); // a new, empty in-memory database
        String token = server.tokenFor("alice");
        String changed = ServerSide.push(
                server, "alice", "course_sync", "course-2", 1, "{\"title\":\"changed on the new server\"}");
        client = new ClientStack(store, server.baseUrl(), Map.of("alice", token));
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.record(ALICE, "course-2").orElseThrow().payloadJson())
                .contains("changed on the new server");
        assertThat(client.edits.record(ALICE, "course-2").orElseThrow().version())
                .isEqualTo(2);
        // the local edit was not dropped: the new server has course-1 at version 1 too, so it applied
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(mine, 1);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(changed).isNotBlank();
    }

    @Test
    void chainedEditsNeverSlipPastAConflictWithAnotherDevicesEdit() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        ServerSide.push(server, "alice", "course_sync", "course-1", 1, "{\"by\":\"deviceB\"}"); // now v2
        String first = client.edits.addEdit(ALICE, "course-1", "{\"by\":\"deviceA-1\"}", false);
        String second = client.edits.addEdit(ALICE, "course-1", "{\"by\":\"deviceA-2\"}", false);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedIn("alice", "course_sync")).doesNotContainKeys(first, second);
        assertThat(client.edits.record(ALICE, "course-1").orElseThrow().payloadJson())
                .contains("deviceB");
        var outbox = client.edits.outbox(ALICE);
        assertThat(outbox).extracting(JdbcLocalEdits.OutboxItem::changeId).containsExactly(first, second);
        assertThat(outbox.get(0).isConflict()).isTrue();
        assertThat(outbox.get(1).isConflict()).isFalse(); // waits behind the conflict, not lost
        // keeping the first edit applies it on v2, then the second on top of it, in order
        client.edits.keepMine(ALICE, first);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedIn("alice", "course_sync"))
                .containsEntry(first, 1)
                .containsEntry(second, 1);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(client.edits.record(ALICE, "course-1").orElseThrow().version())
                .isEqualTo(4);
        assertThat(client.edits.record(ALICE, "course-1").orElseThrow().payloadJson())
                .contains("deviceA-2");
    }

    @Test
    void aChainOfEditsOfOneRecordAppliesInOrder() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        for (int i = 1; i <= 3; i++) {
            client.edits.addEdit(ALICE, "course-2", "{\"step\":" + i + "}", false);
        }
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(client.edits.record(ALICE, "course-2").orElseThrow().version())
                .isEqualTo(4);
        assertThat(client.edits.record(ALICE, "course-2").orElseThrow().payloadJson())
                .contains("\"step\":3");
    }

    @Test
    void largeRecordsWithinTheProtocolLimitsAreStoredAndABigOutboxIsPushedInSeveralBatches() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        String big = "x".repeat(1_200_000);
        ServerSide.push(server, "alice", "course_sync", "i".repeat(250), 0, "{\"blob\":\"" + big + "\"}");
        for (int i = 0; i < 6; i++) {
            client.edits.addEdit(ALICE, "big-" + i, "{\"blob\":\"" + "y".repeat(900_000) + "\"}", false);
        }
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.record(ALICE, "i".repeat(250)).orElseThrow().payloadJson())
                .hasSizeGreaterThan(1_200_000);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(server.stats().pushes()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aPushTheServerRefusesAgainAndAgainFailsEachRunButNeverNeedsAttention() throws Exception {
        client.sync(ALICE, TaskSource.MANUAL);
        String id = client.edits.addEdit(ALICE, "refused", "{\"title\":\"R\"}", false);
        server.faults().setFailPush(3);
        for (int i = 0; i < 3; i++) {
            RunResult r = client.sync(ALICE, TaskSource.RETRY);
            assertThat(r.status()).as("run %d: %s", i, r.message().orElse("")).isEqualTo(RunStatus.FAILED);
            assertThat(r.message().orElseThrow()).isEqualTo("the sync server failed (HTTP 500)");
        }
        assertThat(client.sync(ALICE, TaskSource.RETRY).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
    }

    @Test
    void anUnconfirmablePushNeedsAttentionAndDiscardingResendsWithoutApplyingTwice() throws Exception {
        client.close();
        client = new ClientStack(
                store,
                server.baseUrl(),
                tokens(),
                TimeSource.system(),
                new SyncSettings(500, 100, 2, Duration.ofMillis(10), Duration.ofHours(24)),
                new HttpSettings(Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(5)));
        client.sync(ALICE, TaskSource.MANUAL);
        String id = client.edits.addEdit(ALICE, "lost-answer", "{\"title\":\"L\"}", false);
        // applied, but answered only after 2 s: the client times out and the key stays "in progress"
        // for every question it asks → it cannot confirm → needs attention, keeping the key
        server.faults().setDelayAfterApply(Duration.ofSeconds(2));
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        server.faults().setDelayAfterApply(Duration.ZERO);
        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.NEEDS_ATTENTION);
        assertThat(r.message().orElseThrow()).contains("could not be confirmed");
        assertThat(client.coordinator.submit(ALICE, TaskSource.SCHEDULE))
                .isInstanceOf(SubmitResult.NeedsAttention.class);
        assertThat(client.edits.pendingCount(ALICE)).isEqualTo(1);
        SubmitResult discard = client.coordinator.submit(
                new org.leasesync.run.TriggerRequest(ALICE, TaskSource.MANUAL, false, false, true));
        RunResult resent =
                ((SubmitResult.Started) discard).handle().completion().get(30, TimeUnit.SECONDS);
        assertThat(resent.status()).as(resent.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1); // sent twice, applied once
        assertThat(client.edits.outbox(ALICE)).isEmpty();
    }

    @Test
    void staleRunThatLostItsLeaseMidPushCannotWriteItsCheckpointNorPushASecondCopy() throws Exception {
        ManualTime time = new ManualTime();
        client.close();
        HttpSettings http = new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20));
        SyncSettings settings = new SyncSettings(500, 100, 10, Duration.ofMillis(200), Duration.ofHours(24));
        client = new ClientStack(store, server.baseUrl(), tokens(), time, settings, http);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        String id = client.edits.addEdit(ALICE, "fenced", "{\"title\":\"F\"}", false);
        server.faults().setDelayAfterApply(Duration.ofMillis(1500));
        SubmitResult first = client.coordinator.submit(ALICE, TaskSource.SCHEDULE);
        CompletableFuture<RunResult> stale =
                ((SubmitResult.Started) first).handle().completion();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.stats().pushes() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        try (ClientStack b = new ClientStack(store, server.baseUrl(), tokens(), time, settings, http)) {
            assertThat(b.coordinator.submit(ALICE, TaskSource.MANUAL)).isInstanceOf(SubmitResult.Joined.class);
            time.elapse(Duration.ofSeconds(60)); // the first run's lease expires, unrenewed
            RunResult taken = b.sync(ALICE, TaskSource.MANUAL);
            assertThat(taken.status()).as(taken.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            RunResult old = stale.get(30, TimeUnit.SECONDS);
            assertThat(old.status()).isEqualTo(RunStatus.FAILED);
            assertThat(old.recorded()).isFalse();
        }
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1);
        assertThat(server.stats().pushes()).isEqualTo(1);
        Checkpoint cp = store.history().checkpoint(ALICE).orElseThrow();
        assertThat(cp.epoch())
                .isEqualTo(store.leases().read(ALICE).orElseThrow().epoch());
        assertThat(cp.idempotencyKey()).isEmpty();
        assertThat(client.edits.pendingCount(ALICE)).isZero();
    }

    /**
     * The server has seen epoch 1,000 of this device, which its lease table does not know (the lease
     * row is still this run's): the run writes nothing, and — as for a restored older copy of the
     * local database — the epoch is raised so that the next run goes through.
     */
    @Test
    void aPullRefusedForAStaleFencingTokenStopsTheRunWritesNothingAndRaisesAnEpochTheTableForgot() throws Exception {
        String localEdit = client.edits.addEdit(ALICE, "mine", "{\"title\":\"Mine\"}", false);
        HttpSyncRemote successor = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, tokens()::get, client.edits.clientId());
        successor.pull(ALICE, java.util.Optional.empty(), 10, 1_000, "successor-run"); // a newer epoch of this device

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).isEqualTo(RunStatus.FAILED);
        assertThat(r.message().orElseThrow()).contains("was behind the fencing token the sync server has already seen");
        assertThat(client.edits.records(ALICE)).isEmpty();
        assertThat(client.edits.outbox(ALICE)).extracting(e -> e.changeId()).containsExactly(localEdit);
        assertThat(server.stats().pushes()).isZero();
        assertThat(store.leases().read(ALICE).orElseThrow().epoch()).isGreaterThan(1_000);

        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
    }
}
