package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunEvent;
import org.leasesync.run.RunHistory;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.RunStatus;
import org.leasesync.run.RunView;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ManualTime;

/** Status snapshots read from the stored runs, on real (in-memory) H2. */
class StatusTrackerTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    final LocalStore store = LocalStore.openInMemory();

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void aKeyThatNeedsAttentionIsShownWithTheUnconfirmedPushOfItsCheckpoint() {
        ManualTime time = new ManualTime();
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        HeldLease lease = registry.tryAcquire(KEY).orElseThrow();
        Instant now = time.now();
        store.runs().insertRun(lease.fence(), "run-1", TaskSource.MANUAL, Stage.PUSHING, now, Optional.empty());
        store.runs()
                .saveCheckpoint(
                        lease.fence(),
                        new Checkpoint(
                                KEY,
                                "run-1",
                                lease.fence().epoch(),
                                Optional.of(Stage.PUSHING),
                                "pushing",
                                Optional.of("cur-1"),
                                Optional.of("batch-1"),
                                Optional.of("idem-1"),
                                List.of("change-a", "change-b"),
                                Optional.of(now),
                                now));
        store.runs()
                .finishRun(
                        lease.fence(),
                        "run-1",
                        RunStatus.NEEDS_ATTENTION,
                        Optional.of("a push was sent but its result could not be confirmed"),
                        now);
        registry.release(lease);
        Coordinator coordinator = new Coordinator(
                registry,
                store.runs(),
                ctx -> RunOutcome.succeeded(),
                Runnable::run,
                new LeaseKeeper(registry),
                null,
                null);
        List<KeyStatus> published = new ArrayList<>();
        StatusTracker tracker = new StatusTracker(store.runs(), coordinator, Runnable::run, published::add);

        tracker.setUser("alice");

        KeyStatus s = tracker.latest(KEY).orElseThrow();
        assertThat(s.kind()).isEqualTo(KeyStatus.Kind.NEEDS_ATTENTION);
        assertThat(s).isInstanceOfSatisfying(KeyStatus.NeedsAttention.class, a -> {
            assertThat(a.reason()).contains("a push was sent but its result could not be confirmed");
            assertThat(a.unconfirmedPush())
                    .contains(new KeyStatus.UnconfirmedPush("idem-1", List.of("change-a", "change-b")));
        });
        assertThat(published).contains(s);
    }

    @Test
    void aSignedOutRunInTheDatabaseOrFromThisWindowIsShownAsSignedOutWithWhatToDo() {
        ManualTime time = new ManualTime();
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "b"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        HeldLease lease = registry.tryAcquire(KEY).orElseThrow();
        store.runs()
                .insertRun(lease.fence(), "run-2", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        store.runs()
                .finishRun(
                        lease.fence(),
                        "run-2",
                        RunStatus.SIGNED_OUT,
                        Optional.of("signed out: the sync server "
                                + "no longer accepts this device's session (HTTP 401 invalid_token); sign in again"),
                        time.now());
        registry.release(lease);
        Coordinator coordinator = new Coordinator(
                registry,
                store.runs(),
                ctx -> RunOutcome.signedOut("signed out: ...; sign in again"),
                Runnable::run,
                new LeaseKeeper(registry),
                null,
                null);
        StatusTracker tracker = new StatusTracker(store.runs(), coordinator, Runnable::run, s -> {});
        tracker.setUser("alice");

        KeyStatus s = tracker.latest(KEY).orElseThrow();
        assertThat(s)
                .isInstanceOfSatisfying(
                        KeyStatus.SignedOut.class,
                        o -> assertThat(o.reason().orElse("")).contains("HTTP 401 invalid_token"));
        StatusTexts texts = new StatusTexts(new Messages(java.util.Locale.UK, java.time.ZoneOffset.UTC));
        assertThat(texts.headline(s)).isEqualTo("Signed out — sign in again");
        assertThat(texts.detail(s)).contains("unsent edits are kept");
        StatusTexts zh = new StatusTexts(new Messages(java.util.Locale.SIMPLIFIED_CHINESE, java.time.ZoneOffset.UTC));
        assertThat(zh.headline(s)).isEqualTo("已退出登录 — 请重新登录");
    }

    @Test
    void aTimerOrFocusTriggerThatJoinsTheRunningRunSaysSoOnTheCardAndTheUsersClickIsKeptOverIt() throws Exception {
        ManualTime time = new ManualTime();
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "c"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService workers = java.util.concurrent.Executors.newCachedThreadPool();
        Coordinator coordinator = new Coordinator(
                registry,
                store.runs(),
                ctx -> {
                    running.countDown();
                    try {
                        finish.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return RunOutcome.succeeded();
                },
                workers,
                new LeaseKeeper(registry),
                null,
                null);
        StatusTracker tracker = new StatusTracker(store.runs(), coordinator, Runnable::run, s -> {});
        coordinator.addListener(tracker);
        tracker.setUser("alice");
        StatusTexts texts = new StatusTexts(new Messages(java.util.Locale.UK, java.time.ZoneOffset.UTC));
        StatusTexts zh = new StatusTexts(new Messages(java.util.Locale.SIMPLIFIED_CHINESE, java.time.ZoneOffset.UTC));
        try {
            coordinator.submit(KEY, TaskSource.MANUAL);
            assertThat(running.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(texts.detail(tracker.latest(KEY).orElseThrow())).doesNotContain("joined");

            coordinator.submit(KEY, TaskSource.SCHEDULE);
            KeyStatus byTimer = tracker.latest(KEY).orElseThrow();
            assertThat(byTimer)
                    .isInstanceOfSatisfying(
                            KeyStatus.Running.class,
                            r -> assertThat(r.joinedBy()).contains(TaskSource.SCHEDULE));
            assertThat(texts.detail(byTimer))
                    .startsWith("Already syncing — started ")
                    .contains("by manual")
                    .contains("the timer's sync joined it");
            assertThat(zh.detail(byTimer)).contains("定时同步已加入这次同步");

            coordinator.submit(KEY, TaskSource.FOREGROUND);
            assertThat(texts.detail(tracker.latest(KEY).orElseThrow())).contains("coming back to the window joined it");

            coordinator.submit(KEY, TaskSource.RECOVERY); // not something this window's user asked for
            assertThat(texts.detail(tracker.latest(KEY).orElseThrow())).contains("coming back to the window joined it");

            userJoins(tracker, coordinator);
            coordinator.submit(KEY, TaskSource.SCHEDULE);
            assertThat(texts.detail(tracker.latest(KEY).orElseThrow()))
                    .as("the click is what the user waits for")
                    .contains("your request joined it");
        } finally {
            finish.countDown();
            workers.shutdown();
            assertThat(workers.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
        }
        // the run ended: no join notice is left on the card
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (tracker.latest(KEY).orElseThrow().kind() == KeyStatus.Kind.RUNNING && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(texts.detail(tracker.latest(KEY).orElseThrow())).doesNotContain("joined");
    }

    /** The window's own click path: the submit result joined, and the view model tells the tracker. */
    private static void userJoins(StatusTracker tracker, Coordinator coordinator) {
        org.leasesync.run.SubmitResult r = coordinator.submit(KEY, TaskSource.MANUAL);
        assertThat(r).isInstanceOf(org.leasesync.run.SubmitResult.Joined.class);
        tracker.userJoined(KEY, ((org.leasesync.run.SubmitResult.Joined) r).running());
    }

    @Test
    void aRefreshThatReadTheRowOfARunStartingHereDoesNotOverwriteItsStartedEvent() {
        ManualTime time = new ManualTime();
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("t", 1, 1, "d"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        HeldLease lease = registry.tryAcquire(KEY).orElseThrow();
        // the run's row is committed; its local handle is not registered yet (the coordinator's start)
        store.runs().insertRun(lease.fence(), "run-4", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
        Coordinator coordinator = new Coordinator(
                registry,
                store.runs(),
                ctx -> RunOutcome.succeeded(),
                Runnable::run,
                new LeaseKeeper(registry),
                null,
                null);
        RunView local = new RunView(
                "run-4",
                KEY,
                lease.fence().epoch(),
                lease.fence().owner().asString(),
                TaskSource.MANUAL,
                List.of(),
                time.now(),
                Optional.of(Stage.PULLING),
                "pulling",
                true,
                false);
        StatusTracker[] tracker = new StatusTracker[1];
        boolean[] delivered = {false};
        // the STARTED event arrives while the refresh is reading the database
        RunHistory reading = (RunHistory) java.lang.reflect.Proxy.newProxyInstance(
                RunHistory.class.getClassLoader(), new Class<?>[] {RunHistory.class}, (proxy, method, args) -> {
                    if (method.getName().equals("lastSucceeded") && !delivered[0]) {
                        delivered[0] = true;
                        tracker[0].accept(new RunEvent(
                                RunEvent.Kind.STARTED,
                                KEY,
                                Optional.of(local),
                                Optional.of(TaskSource.MANUAL),
                                Optional.empty(),
                                Optional.empty()));
                    }
                    try {
                        return method.invoke(store.runs(), args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        List<KeyStatus> published = new ArrayList<>();
        tracker[0] = new StatusTracker(reading, coordinator, Runnable::run, published::add);

        tracker[0].setUser("alice");

        assertThat(delivered[0]).isTrue();
        assertThat(tracker[0].latest(KEY).orElseThrow())
                .isInstanceOfSatisfying(
                        KeyStatus.Running.class,
                        r -> assertThat(r.run().local())
                                .as("this process's run, as its event said")
                                .isTrue());
        assertThat(published.stream().filter(p -> p.key().equals(KEY)).toList())
                .last()
                .isInstanceOfSatisfying(
                        KeyStatus.Running.class,
                        r -> assertThat(r.run().local()).isTrue());
        registry.release(lease);
    }
}
