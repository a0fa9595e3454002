package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * Stored state nobody can read (a damaged checkpoint naming a push whose entries
 * are gone) fails closed as needs attention — and the way out the user is shown works with the real
 * worker and server: check again says what is wrong, discard gets the key going, the edits waiting
 * behind it are pushed, and the next ordinary trigger starts.
 */
class CorruptCheckpointWayOutTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    ReferenceServer server;
    LocalStore store;
    ClientStack client;

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
        store = LocalStore.openInMemory();
        client = new ClientStack(store, server.baseUrl(), Map.of("alice", server.tokenFor("alice")));
    }

    @AfterEach
    void tearDown() {
        client.close();
        store.close();
        server.close();
    }

    RunResult await(SubmitResult r) throws Exception {
        assertThat(r).isInstanceOf(SubmitResult.Started.class);
        return ((SubmitResult.Started) r).handle().completion().get(60, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aDamagedCheckpointNeedsAttentionAndDiscardIsTheWayOut() throws Exception {
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        // A run that died mid-push, whose checkpoint was then damaged: an unknown stage and a batch
        // whose outbox entries no longer exist.
        TaskRegistry dead = new TaskRegistry(
                store.leases(),
                new OwnerId("gone", 4242, 1, "dead"),
                Duration.ofSeconds(60),
                TimeSource.system(),
                OwnerLiveness.neverProvable());
        HeldLease lease = dead.tryAcquire(ALICE).orElseThrow();
        store.runs()
                .insertRun(
                        lease.fence(),
                        "dead-run",
                        TaskSource.SCHEDULE,
                        Stage.PUSHING,
                        TimeSource.system().now(),
                        Optional.empty());
        store.runs()
                .saveCheckpoint(
                        lease.fence(),
                        new Checkpoint(
                                ALICE,
                                "dead-run",
                                lease.fence().epoch(),
                                Optional.empty(),
                                "half-pushed",
                                Optional.empty(),
                                Optional.of("b-1"),
                                Optional.of("idem-gone"),
                                List.of("c-1", "c-2"),
                                Optional.empty(),
                                TimeSource.system().now()));
        dead.release(lease);
        client.edits.addEdit(ALICE, "waiting", "{\"title\":\"behind it\"}", false);

        SubmitResult first = client.coordinator.submit(ALICE, TaskSource.SCHEDULE);
        assertThat(first)
                .isInstanceOfSatisfying(
                        SubmitResult.NeedsAttention.class,
                        n -> assertThat(n.reason()).contains("unknown stage 'half-pushed'"));
        assertThat(client.coordinator.submit(ALICE, TaskSource.SCHEDULE))
                .isInstanceOf(SubmitResult.NeedsAttention.class);

        RunResult checked = await(client.coordinator.submit(new TriggerRequest(ALICE, TaskSource.MANUAL, false, true)));
        assertThat(checked.status()).isEqualTo(RunStatus.NEEDS_ATTENTION);
        assertThat(checked.message().orElseThrow())
                .contains("idempotency key idem-gone")
                .contains("no longer all there");

        RunResult discarded =
                await(client.coordinator.submit(new TriggerRequest(ALICE, TaskSource.MANUAL, false, false, true)));
        assertThat(discarded.status()).as(discarded.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(server.stats().appliedByChangeId().values().stream()
                        .flatMap(m -> m.values().stream())
                        .toList())
                .containsExactly(1);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(store.history().checkpoint(ALICE).orElseThrow().idempotencyKey())
                .isEmpty();
        assertThat(server.stats().appliedByChangeId()).hasSize(1);
        assertThat(client.edits.record(ALICE, "waiting").orElseThrow().version())
                .isEqualTo(1);

        assertThat(await(client.coordinator.submit(ALICE, TaskSource.SCHEDULE)).status())
                .isEqualTo(RunStatus.SUCCEEDED);
    }
}
