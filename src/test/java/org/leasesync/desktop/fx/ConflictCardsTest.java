package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.PauseControl;
import org.leasesync.desktop.SettingsFile;
import org.leasesync.desktop.StatusTexts;
import org.leasesync.desktop.StatusTracker;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.desktop.tray.TrayState;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.TaskSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualScheduler;
import org.leasesync.testing.ManualTime;

/**
 * The card and tray rules for conflicts, on the view models without a stage: a real coordinator on
 * in-memory H2, the window's conflict wiring ({@link ConflictAssembly}) reading the counts from the
 * outbox, direct executors, a manual scheduler for the sync after an edit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConflictCardsTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final LocalStore store = LocalStore.openInMemory();
    final ExecutorService workers = Executors.newCachedThreadPool();
    final Executor direct = Runnable::run;
    final ManualTime time = new ManualTime();
    final ManualScheduler scheduler = new ManualScheduler();
    final JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), time);
    volatile boolean fail;

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    record Window(
            MainViewModel vm,
            DataViewModel data,
            ConflictAssembly conflicts,
            TrayController tray,
            PauseControl pause) {}

    Window window(Locale locale) {
        TaskRegistry r = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        Coordinator c = new Coordinator(
                r,
                store.runs(),
                ctx -> fail ? RunOutcome.failed("the server answered 500") : RunOutcome.succeeded(),
                workers,
                new LeaseKeeper(r),
                null,
                null);
        StatusTexts texts = new StatusTexts(new Messages(locale, ZoneId.of("UTC")));
        SettingsFile settings = new SettingsFile(tmp, time);
        PauseControl pause = new PauseControl(settings, time, ZoneId.of("UTC"), direct, reason -> {});
        MainViewModel vm = new MainViewModel(
                c,
                direct,
                direct,
                texts,
                List.of("alice"),
                sink -> new StatusTracker(store.runs(), c, direct, sink),
                pause,
                time);
        DataViewModel data = new DataViewModel(edits, vm, direct, direct, texts);
        ConflictAssembly conflicts = new ConflictAssembly(
                store.database(), edits, time, vm, data, direct, direct, texts, scheduler, () -> null);
        BackgroundViewModel desktop = new BackgroundViewModel(
                vm,
                settings,
                pause,
                new Autostart(
                        tmp.resolve("autostart"), tmp.resolve("autostart").resolveSibling("share"), Optional.empty()),
                direct,
                direct,
                time,
                texts);
        TrayController tray = new TrayController(BareDesktop.NoTray.INSTANCE, vm, desktop, texts.messages(), time);
        vm.start();
        return new Window(vm, data, conflicts, tray, pause);
    }

    /** An edit made on version 3 of a record this device has at version 0: a conflict ("not on the server"). */
    void conflict(String recordId) {
        assertThat(edits.saveEdit(ALICE, recordId, "{\"title\":\"mine\"}", false, OptionalLong.of(3))
                        .conflict())
                .isTrue();
    }

    static void waitUntil(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aWaitingConflictIsTheCardsAndTheTraysOwnStateWithResolveAndRightPlurals() throws Exception {
        Window w = window(Locale.UK);
        ScopeCardModel courses = w.vm().card(Scope.COURSE_SYNC);
        w.vm().syncNow(Scope.COURSE_SYNC);
        waitUntil("up to date", () -> courses.kindProperty().get() == KeyStatus.Kind.IDLE);
        assertThat(w.tray().view().state()).isEqualTo(TrayState.UP_TO_DATE);
        assertThat(courses.resolveVisibleProperty().get()).isFalse();

        conflict("c1");
        w.vm().syncNow(Scope.COURSE_SYNC); // the state is read again after the run
        waitUntil("a conflict shown", () -> courses.kindProperty().get() == KeyStatus.Kind.CONFLICTS);
        assertThat(courses.headlineProperty().get()).isEqualTo("1 conflict to resolve");
        assertThat(courses.detailProperty().get())
                .startsWith("Your edits and changes on the server touch the same"
                        + " records: choose which version to keep · last synced ");
        assertThat(courses.resolveVisibleProperty().get()).isTrue();
        assertThat(w.vm().card(Scope.BACKUP).kindProperty().get())
                .as("another scope's card")
                .isNotEqualTo(KeyStatus.Kind.CONFLICTS);
        TrayPort.TrayView view = w.tray().view();
        assertThat(view.state()).isEqualTo(TrayState.CONFLICTS);
        assertThat(view.tooltip()).startsWith("1 conflict to resolve · last successful sync ");

        conflict("c2");
        w.conflicts().refresh();
        assertThat(courses.headlineProperty().get()).isEqualTo("2 conflicts to resolve");
        assertThat(w.tray().view().tooltip()).startsWith("2 conflicts to resolve · ");

        // worse than up to date, better than a failure: a failed run shows as failed, with Resolve still offered
        fail = true;
        w.vm().syncNow(Scope.COURSE_SYNC);
        waitUntil("failed", () -> courses.kindProperty().get() == KeyStatus.Kind.FAILED);
        assertThat(courses.resolveVisibleProperty().get()).isTrue();
        assertThat(w.tray().view().state()).isEqualTo(TrayState.FAILED);
        fail = false;

        // resolved: up to date again
        w.vm().syncNow(Scope.COURSE_SYNC);
        waitUntil("conflicts again", () -> courses.kindProperty().get() == KeyStatus.Kind.CONFLICTS);
        for (JdbcLocalEdits.OutboxItem i : edits.outbox(ALICE)) {
            assertThat(edits.takeTheirs(ALICE, i.changeId())).isTrue();
        }
        w.conflicts().refresh();
        assertThat(courses.kindProperty().get()).isEqualTo(KeyStatus.Kind.IDLE);
        assertThat(courses.resolveVisibleProperty().get()).isFalse();
        assertThat(w.tray().view().state()).isEqualTo(TrayState.UP_TO_DATE);
    }

    @Test
    void inChineseTheCountReadsAsChinese() throws Exception {
        Window w = window(Locale.SIMPLIFIED_CHINESE);
        conflict("c1");
        w.vm().syncNow(Scope.COURSE_SYNC);
        ScopeCardModel courses = w.vm().card(Scope.COURSE_SYNC);
        waitUntil("a conflict shown", () -> courses.kindProperty().get() == KeyStatus.Kind.CONFLICTS);
        assertThat(courses.headlineProperty().get()).isEqualTo("1 个冲突待解决");
        assertThat(w.tray().view().tooltip()).startsWith("1 个冲突待解决");
    }

    @Test
    void savingAnEditSyncsItsKeyTwoSecondsAfterTheLastSaveThroughTheCoordinator() throws Exception {
        Window w = window(Locale.UK);
        w.data().saveEdit("c1", "{\"title\":\"one\"}");
        scheduler.advance(Duration.ofSeconds(1));
        w.data().saveEdit("c1", "{\"title\":\"two\"}");
        scheduler.advance(Duration.ofMillis(1999));
        assertThat(store.history().history(ALICE, 10)).as("no sync yet").isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        waitUntil(
                "one run",
                () -> store.history().history(ALICE, 10).size() == 1
                        && store.history().history(ALICE, 10).get(0).status().isPresent());
        assertThat(store.history().history(ALICE, 10).get(0).firstSource()).isEqualTo(TaskSource.EDIT);
        assertThat(scheduler.pending()).isZero();

        // paused: the edit's sync is held back like the timer's (and the card says it was skipped)
        w.pause().pause(org.leasesync.desktop.Pause.Option.ONE_HOUR);
        w.data().saveEdit("c1", "{\"title\":\"three\"}");
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(store.history().history(ALICE, 10)).hasSize(1);
        assertThat(w.vm().overlay().skipped()).containsKey(Scope.COURSE_SYNC);
    }
}
