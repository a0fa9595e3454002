package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.registry.Fence;
import org.leasesync.registry.OwnerId;
import org.leasesync.registry.OwnerLiveness;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskRegistry;
import org.leasesync.registry.TimeSource;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.sync.RemoteRecord;

/**
 * Issue 14 §5, fifth pass: the push batch read ahead while the one before it is at the server
 * ({@link JdbcLocalData#pendingOutboxAfter}). It holds only entries after the batch in flight whose
 * record has no earlier outbox entry in any state, so that nothing the confirmation of the batch in
 * flight writes, and nothing a user does to an earlier entry, can change what it read. H2 here;
 * PostgreSQL in a subclass.
 */
class PendingOutboxAfterTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final TaskKey OTHER = TaskKey.of("bob", "course_sync");

    LocalStore store;
    JdbcLocalData data;
    JdbcLocalEdits edits;
    Fence fence;

    LocalStore openStore() {
        return LocalStore.openInMemory();
    }

    @BeforeEach
    void setUp() {
        store = openStore();
        data = new JdbcLocalData(store.database(), TimeSource.system());
        edits = new JdbcLocalEdits(store.database(), TimeSource.system());
        TaskRegistry registry = new TaskRegistry(store.leases(), new OwnerId("test", ProcessHandle.current().pid(), 1, "ae"),
                Duration.ofMinutes(10), TimeSource.system(), OwnerLiveness.neverProvable());
        fence = registry.tryAcquire(KEY).orElseThrow().fence();
        data.applyPullPage(fence, "run", new PullPage(List.of(new RemoteRecord("r", 1, false, "{\"n\":0}",
                Instant.parse("2026-11-30T10:00:00Z"))), "cursor", false));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void readsTheOldestEntriesAfterTheGivenSeqOfThisKeyOnlyUpToTheLimit() {
        String a = edits.addEdit(KEY, "a", "{}", false);
        String b = edits.addEdit(KEY, "b", "{}", false);
        edits.addEdit(OTHER, "c", "{}", false);
        String d = edits.addEdit(KEY, "d", "{}", false);
        String e = edits.addEdit(KEY, "e", "{}", false);
        long afterA = seq(a);

        assertThat(ids(data.pendingOutboxAfter(KEY, afterA, 10))).containsExactly(b, d, e);
        assertThat(ids(data.pendingOutboxAfter(KEY, afterA, 2))).containsExactly(b, d);
        assertThat(ids(data.pendingOutboxAfter(KEY, seq(e), 10))).isEmpty();
        assertThat(data.pendingOutboxAfter(KEY, afterA, 10)).as("the same entries, payloads and bases as the ordinary read")
                .isEqualTo(data.pendingOutbox(KEY, 10).subList(1, 4));
    }

    @Test
    void leavesOutAnEntryWithAnEarlierEntryOfItsRecordInAnyStateWhichTheOrdinaryReadWouldSend() {
        String inFlight = edits.addEdit(KEY, "r", "{\"n\":1}", false);
        String rejected = edits.addEdit(KEY, "s", "{\"n\":1}", false);
        String conflict = edits.addEdit(KEY, "t", "{\"n\":1}", false);
        long after = seq(conflict);
        String behindInFlight = edits.addEdit(KEY, "r", "{\"n\":2}", false);
        String behindRejected = edits.addEdit(KEY, "s", "{\"n\":2}", false);
        String behindConflict = edits.addEdit(KEY, "t", "{\"n\":2}", false);
        String free = edits.addEdit(KEY, "u", "{\"n\":1}", false);
        assertThat(data.rejectEntry(fence, "run", entry(rejected), "refused")).isTrue();
        data.confirmPush(fence, "run", new PushBatch("b0", "k0", List.of(entry(conflict))), new PushResponse(List.of(
                new PushResult(conflict, "t", false, 0, false, 3, false, "{\"n\":9}"))));

        assertThat(ids(data.pendingOutboxAfter(KEY, after, 10))).containsExactly(free);
        // the ordinary read sends the edit behind a rejected one (its record's server version is unchanged)
        assertThat(ids(data.pendingOutbox(KEY, 10))).containsExactly(inFlight, behindRejected, free);

        data.confirmPush(fence, "run", new PushBatch("b1", "k1", List.of(entry(inFlight))), new PushResponse(List.of(
                new PushResult(inFlight, "r", true, 2, false, 0, false, null))));
        List<OutboxEntry> next = data.pendingOutboxAfter(KEY, after, 10);
        assertThat(ids(next)).as("its earlier entry confirmed and gone").containsExactly(behindInFlight, free);
        assertThat(next.get(0).baseVersion()).as("rebased on the confirmed version").isEqualTo(2);
        assertThat(ids(data.pendingOutboxAfter(KEY, after, 10))).doesNotContain(behindConflict);
    }

    private long seq(String changeId) {
        return edits.entry(KEY, changeId).orElseThrow().seq();
    }

    private OutboxEntry entry(String changeId) {
        JdbcLocalEdits.OutboxItem i = edits.entry(KEY, changeId).orElseThrow();
        return new OutboxEntry(i.seq(), i.changeId(), i.recordId(), i.baseVersion(), i.deleted(), i.payloadJson(),
                i.createdAt());
    }

    private static List<String> ids(List<OutboxEntry> entries) {
        return entries.stream().map(OutboxEntry::changeId).toList();
    }
}
