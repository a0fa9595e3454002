package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/** The Data tab's view model without a stage: edits refused by the server are shown with why, and the way out. */
class DataViewModelTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final Executor direct = Runnable::run;
    final ManualTime time = new ManualTime();
    final JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), time);

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    DataViewModel vm() {
        return vm(null);
    }

    /** @param texts the window's language, or null for the system's (en_GB under the tests) */
    DataViewModel vm(StatusTexts texts) {
        TaskRegistry r = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        Coordinator c = new Coordinator(
                r, store.runs(), ctx -> RunOutcome.succeeded(), workers, new LeaseKeeper(r), null, null);
        MainViewModel main = new MainViewModel(
                c,
                direct,
                direct,
                ZoneId.of("UTC"),
                List.of("alice"),
                sink -> new StatusTracker(store.runs(), c, direct, sink));
        main.start();
        return texts == null
                ? new DataViewModel(edits, main, direct, direct, ZoneId.of("UTC"))
                : new DataViewModel(edits, main, direct, direct, texts);
    }

    static DataViewModel.OutboxRow row(DataViewModel vm, String recordId) {
        return vm.outbox().stream()
                .filter(r -> r.recordId().equals(recordId))
                .findFirst()
                .orElseThrow();
    }

    /** Makes the outbox entry {@code changeId} a conflict with the server's version {@code serverVersion}. */
    void conflict(String changeId, long serverVersion, boolean serverDeleted, String serverPayload) {
        store.database().transaction("conflict", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET state = 'conflict', server_version = ?,"
                    + " server_deleted = ?, server_payload = ? WHERE change_id = ?")) {
                ps.setLong(1, serverVersion);
                ps.setBoolean(2, serverDeleted);
                ps.setString(3, serverPayload);
                ps.setString(4, changeId);
                return ps.executeUpdate();
            }
        });
    }

    String refused(String recordId, String reason) {
        String changeId = edits.addEdit(ALICE, recordId, "{\"n\":1}", false);
        store.database().transaction("set aside", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE outbox SET state = 'rejected', rejected_reason = ?, rejected_at_ms = 1 WHERE change_id = ?")) {
                ps.setString(1, reason);
                ps.setString(2, changeId);
                return ps.executeUpdate();
            }
        });
        return changeId;
    }

    @Test
    void theRecordsTableReadsAPageAtATimeAndAppendsTheNextOnShowMore() {
        int total = DataViewModel.PAGE_SIZE * 2 + 7;
        store.database().transaction("seed", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO local_record (user_id, scope, record_id, version,"
                            + " deleted, payload, server_time_ms) VALUES ('alice', 'course_sync', ?, 1, FALSE, '{}', 0)")) {
                for (int i = 0; i < total; i++) {
                    ps.setString(1, String.format("r-%05d", i));
                    ps.addBatch();
                }
                return ps.executeBatch().length;
            }
        });
        DataViewModel vm = vm();
        vm.load();
        assertThat(vm.records()).hasSize(DataViewModel.PAGE_SIZE);
        assertThat(vm.moreProperty().get()).isTrue();
        assertThat(vm.summaryProperty().get()).startsWith("more than " + DataViewModel.PAGE_SIZE + " records · ");

        vm.loadMore();
        assertThat(vm.records()).hasSize(DataViewModel.PAGE_SIZE * 2);
        assertThat(vm.moreProperty().get()).isTrue();
        vm.loadMore();
        assertThat(vm.records()).hasSize(total);
        assertThat(vm.moreProperty().get()).isFalse();
        assertThat(vm.records())
                .extracting(DataViewModel.RecordRow::id)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, total)
                        .mapToObj(i -> String.format("r-%05d", i))
                        .toList()); // in order, none twice, none missed
        vm.loadMore(); // nothing more: nothing changes
        assertThat(vm.records()).hasSize(total);
    }

    @Test
    void aRefusedEditIsShownWithWhyAndCanBeDiscardedOrSentAgain() {
        String bad = refused("course-7", "the sync server refused it (HTTP 413 payload_too_large)");
        String other = refused("course-8", "the sync server refused it (HTTP 422 validation_failed)");
        edits.addEdit(ALICE, "course-9", "{\"n\":2}", false);
        DataViewModel vm = vm();
        vm.load();

        assertThat(vm.summaryProperty().get())
                .isEqualTo("0 records · 1 local edit waiting to be pushed · 2 edits refused by the server");
        DataViewModel.OutboxRow row = vm.outbox().get(0);
        assertThat(row.changeId()).isEqualTo(bad);
        assertThat(row.state()).isEqualTo("refused");
        assertThat(row.isSetAside()).isTrue();
        assertThat(row.theirs()).isEqualTo("Set aside: the sync server refused it (HTTP 413 payload_too_large)");
        assertThat(vm.outbox().get(2).isSetAside()).isFalse();

        vm.discard(bad);
        assertThat(vm.messageProperty().get()).isEqualTo("Discarded the refused edit.");
        assertThat(vm.outbox()).extracting(DataViewModel.OutboxRow::changeId).doesNotContain(bad);

        vm.sendAgain(other);
        assertThat(vm.messageProperty().get()).isEqualTo("Queued again; the next sync pushes it.");
        assertThat(vm.summaryProperty().get()).isEqualTo("0 records · 2 local edits waiting to be pushed");
    }

    @Test
    void underChineseTheSummaryStatesAndConflictWordingAreChineseAndEnglishStaysAsBefore() {
        conflict(edits.addEdit(ALICE, "course-2", "{\"n\":1}", false), 2, true, "{}");
        conflict(edits.addEdit(ALICE, "course-3", "{\"n\":1}", false), 4, false, "{\"n\":5}");
        refused("course-7", "the sync server refused it (HTTP 413 payload_too_large)");
        edits.addEdit(ALICE, "course-9", "{\"n\":2}", false);
        DataViewModel zh =
                vm(new StatusTexts(new Messages(java.util.Locale.SIMPLIFIED_CHINESE, ZoneId.of("Asia/Shanghai"))));
        zh.load();
        assertThat(zh.summaryProperty().get()).isEqualTo("0 条记录 · 1 项本地编辑等待推送 · 2 个冲突待解决 · 1 项编辑被服务器拒绝");
        DataViewModel.OutboxRow deleted = row(zh, "course-2");
        assertThat(deleted.state()).as("the stored state, for the buttons").isEqualTo("conflict");
        assertThat(deleted.isConflict()).isTrue();
        assertThat(deleted.shownState()).isEqualTo("冲突");
        assertThat(deleted.theirs()).isEqualTo("已在服务器上删除（v2）");
        assertThat(deleted.keepMineMeans()).isEqualTo("下次同步会恢复 course-2，它已在服务器上删除");
        assertThat(row(zh, "course-3").theirs()).isEqualTo("v4 {\"n\":5}");
        assertThat(row(zh, "course-7").shownState()).isEqualTo("被拒绝");
        assertThat(row(zh, "course-7").theirs())
                .isEqualTo("已搁置：the sync server refused it (HTTP 413 payload_too_large)");
        assertThat(row(zh, "course-9").shownState()).isEqualTo("等待推送");
        zh.saveEdit("course-1", "[1]");
        assertThat(zh.messageProperty().get()).isEqualTo("内容必须是一个 JSON 对象，例如 {\"title\": \"代数\"}。");

        DataViewModel en = vm();
        en.load();
        DataViewModel.OutboxRow theirs = row(en, "course-3");
        assertThat(theirs.shownState()).isEqualTo("conflict");
        assertThat(theirs.theirs()).as("as the command line says it").isEqualTo("v4 {\"n\":5}");
        assertThat(theirs.keepMineMeans()).isEqualTo("the next sync pushes it over the server's version 4 of course-3");
        en.saveEdit("course-1", "[1]");
        assertThat(en.messageProperty().get())
                .isEqualTo("The content must be a JSON object, like {\"title\": \"Algebra\"}.");
    }

    @Test
    void anEditThatCanNeverBePushedIsRefusedWhenSavedWithTheLimit() {
        DataViewModel vm = vm();
        vm.saveEdit("huge", "{\"blob\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}");
        assertThat(vm.messageProperty().get())
                .isEqualTo("This content cannot be synced: its content is 5,242,891 bytes;"
                        + " a record may have at most 5,238,784 bytes (5 MiB less 4 KiB)");
        assertThat(edits.outbox(ALICE)).isEmpty();
    }

    /** The record editor checks the depth limit as the command line's edit and the push body do. */
    @Test
    void anEditNestedDeeperThanARecordMayIsRefusedWhenSavedAndOneAtTheLimitIsSaved() {
        DataViewModel vm = vm();
        int limit = org.leasesync.protocol.RecordLimits.MAX_PAYLOAD_DEPTH;
        vm.saveEdit("deep", "{\"a\":".repeat(limit + 1) + "1" + "}".repeat(limit + 1));
        assertThat(vm.messageProperty().get())
                .isEqualTo("This content cannot be synced: its content nests more than"
                        + " 256 levels deep; a record may nest at most 256");
        vm.saveEdit("deeper", "[".repeat(1500) + "]".repeat(1500));
        assertThat(vm.messageProperty().get())
                .isEqualTo("This content cannot be synced: its content nests more than"
                        + " 256 levels deep; a record may nest at most 256");
        assertThat(edits.outbox(ALICE)).isEmpty();

        vm.saveEdit("at-limit", "{\"a\":".repeat(limit) + "1" + "}".repeat(limit));
        assertThat(edits.outbox(ALICE))
                .extracting(JdbcLocalEdits.OutboxItem::recordId)
                .containsExactly("at-limit");
    }
}
