package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.Fence;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.sync.RemoteRecord;

/**
 * An edit saved while the previous edit of the same record is being confirmed.
 * Two real threads race on a real database, again and again: one confirms the pending edit of
 * {@code course-1} (the server applied it as version v+1), the other saves the next edit of the same
 * record at the same moment. Whichever commits first, the new edit must end up based on v+1 — the
 * version the user's own previous edit produced — never on v, which the server would answer with a
 * conflict against the user's own edit. Without the per-record lock the rebase in the confirmation
 * cannot see the uncommitted edit and the edit cannot see the uncommitted version, and this test
 * fails within a few dozen rounds. H2 here; PostgreSQL in a subclass.
 */
class EditConfirmRaceTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final String RECORD = "course-1";

    final ExecutorService threads =
            Executors.newFixedThreadPool(2, r -> new Thread(r, "race-" + THREADS.incrementAndGet()));
    static final AtomicInteger THREADS = new AtomicInteger();
    LocalStore store;
    JdbcLocalData data;
    JdbcLocalEdits edits;
    Fence fence;

    /** The store under test; PostgreSQL in the subclass. */
    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    /** Rounds of the race; each takes a few milliseconds. */
    int rounds() {
        return 300;
    }

    @BeforeEach
    void setUp() {
        store = openStore();
        data = new JdbcLocalData(store.database(), TimeSource.system());
        edits = new JdbcLocalEdits(store.database(), TimeSource.system());
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, "ab"),
                Duration.ofMinutes(10),
                TimeSource.system(),
                OwnerLiveness.neverProvable());
        fence = registry.tryAcquire(KEY).orElseThrow().fence();
        data.applyPullPage(
                fence,
                "run",
                new PullPage(
                        List.of(new RemoteRecord(RECORD, 1, false, "{\"n\":0}", Instant.parse("2026-11-30T10:00:00Z"))),
                        "cursor",
                        false));
        edits.addEdit(KEY, RECORD, "{\"n\":1}", false);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        store.close();
    }

    @Test
    void anEditSavedWhileThePreviousOneIsConfirmedIsBasedOnTheConfirmedVersion() throws Exception {
        List<String> stale = new ArrayList<>();
        for (int round = 1; round <= rounds(); round++) {
            List<JdbcLocalEdits.OutboxItem> outbox = edits.outbox(KEY);
            assertThat(outbox).as("round %d: one pending edit", round).hasSize(1);
            JdbcLocalEdits.OutboxItem pending = outbox.get(0);
            long produced = pending.baseVersion() + 1;
            OutboxEntry entry = new OutboxEntry(
                    pending.seq(),
                    pending.changeId(),
                    RECORD,
                    pending.baseVersion(),
                    false,
                    pending.payloadJson(),
                    pending.createdAt());
            PushResponse applied = new PushResponse(
                    List.of(new PushResult(pending.changeId(), RECORD, true, produced, false, 0, false, null)));
            CyclicBarrier start = new CyclicBarrier(2);
            Future<?> confirm = threads.submit(() -> {
                start.await();
                spin();
                data.confirmPush(fence, "run", new PushBatch("b", "k", List.of(entry)), applied);
                return null;
            });
            int n = round + 1;
            Future<String> edit = threads.submit(() -> {
                start.await();
                spin();
                return edits.addEdit(KEY, RECORD, "{\"n\":" + n + "}", false);
            });
            confirm.get(30, TimeUnit.SECONDS);
            String changeId = edit.get(30, TimeUnit.SECONDS);
            JdbcLocalEdits.OutboxItem next = edits.entry(KEY, changeId).orElseThrow();
            if (next.baseVersion() != produced) {
                stale.add("round " + round + ": based on " + next.baseVersion() + ", the confirmed version is "
                        + produced);
            }
            assertThat(next.isConflict()).isFalse();
            assertThat(edits.record(KEY, RECORD).orElseThrow().version()).isEqualTo(produced);
        }
        assertThat(stale)
                .as("edits that kept a stale base (of %d rounds)", rounds())
                .isEmpty();
    }

    /** A random short delay, so that the two transactions interleave at every point. */
    private static void spin() {
        int n = ThreadLocalRandom.current().nextInt(20_000);
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
