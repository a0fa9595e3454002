package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.StartCheck;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.testing.ManualTime;

/**
 * Two windows on one data directory — two real client runtimes (registry, coordinator, worker,
 * HTTP) on one H2 file, against a real server — each with a timer: a key that synced successfully
 * within 80% of the interval is skipped, the skip is in the history, and a key whose last sync
 * failed is not. Time is injected: one monotonic clock for both (as the processes of one machine
 * share {@code CLOCK_MONOTONIC}), wall clocks that disagree by hours.
 */
class RecentSyncGateTest {

    private static final Duration INTERVAL = Duration.ofMinutes(5);
    private static final Duration FOREGROUND_MIN = Duration.ofMinutes(1);

    @TempDir
    Path tmp;

    private final ManualTime time = new ManualTime();
    private ReferenceServer server;
    private final List<ClientRuntime> windows = new ArrayList<>();

    @BeforeEach
    void startServer() {
        server = ReferenceServer.start(ServerConfig.defaults());
    }

    @AfterEach
    void stop() {
        windows.forEach(ClientRuntime::close);
        server.close();
    }

    /** A window: a client runtime with the background-trigger rule installed in its coordinator, as the app does. */
    private ClientRuntime window(TimeSource t) {
        ClientRuntime rt = ClientRuntime.open(new ClientConfig(
                tmp.resolve("data"),
                server.baseUrl(),
                Map.of("alice", server.tokenFor("alice")),
                Duration.ofSeconds(60),
                HttpSettings.DEFAULT,
                SyncSettings.DEFAULT,
                RetryPolicy.NONE,
                t));
        windows.add(rt);
        rt.coordinator().setStartCheck(rule(rt));
        return rt;
    }

    private static StartCheck rule(ClientRuntime w) {
        return w.recentSyncs().backgroundTriggers(INTERVAL, FOREGROUND_MIN);
    }

    private static boolean due(ClientRuntime w, TaskKey key, TaskSource source) {
        return rule(w).skipReason(TriggerRequest.of(key, source)).isEmpty();
    }

    /** Submits a schedule trigger; waits for the run it started. @return true if it started one */
    private static boolean submit(ClientRuntime w, TaskKey key) throws Exception {
        SubmitResult r = w.coordinator().submit(TriggerRequest.of(key, TaskSource.SCHEDULE));
        if (r instanceof SubmitResult.Skipped) {
            return false;
        }
        assertThat(r).as("nothing else runs: the tick starts the run").isInstanceOf(SubmitResult.Started.class);
        RunResult done = ((SubmitResult.Started) r).handle().completion().get(60, TimeUnit.SECONDS);
        assertThat(done.status()).as(done.message().orElse("")).isIn(RunStatus.SUCCEEDED, RunStatus.FAILED);
        return true;
    }

    /** One timer tick of a window, as the app does it: the quick check per key, then the coordinator. */
    private int tick(ClientRuntime w) throws Exception {
        int started = 0;
        for (Scope s : Scope.values()) {
            TaskKey key = new TaskKey("alice", s);
            if (due(w, key, TaskSource.SCHEDULE) && submit(w, key)) {
                started++;
            }
        }
        return started;
    }

    private List<RunRecord> scheduleRuns(ClientRuntime w, TaskKey key) {
        return w.store().history().history(key, 1_000).stream()
                .filter(r -> r.firstSource() == TaskSource.SCHEDULE)
                .toList();
    }

    private List<TriggerSkip> skips(ClientRuntime w, TaskKey key) {
        return new JdbcRecentSyncs(w.store().database()).skips(key, 1_000);
    }

    @Test
    void twoWindowsWhoseWallClocksDisagreeByHoursSyncEachKeyOncePerIntervalAndRecordTheSkips() throws Exception {
        ClientRuntime a = window(time);
        ClientRuntime b = window(time.withWallOffset(Duration.ofHours(-3))); // B's wall clock runs 3 h behind
        int intervals = 6;
        int started = 0;
        for (int k = 0; k < intervals; k++) {
            ClientRuntime first = k % 2 == 0 ? a : b; // the timers drift: either may tick first
            ClientRuntime second = first == a ? b : a;
            time.elapse(INTERVAL.minusSeconds(2));
            started += tick(first);
            time.elapse(Duration.ofSeconds(2)); // the other window's timer, 2 s later
            started += tick(second);
        }

        assertThat(started)
                .as("one scheduled sync per key and interval, not one per window")
                .isEqualTo(3 * intervals);
        for (Scope s : Scope.values()) {
            TaskKey key = new TaskKey("alice", s);
            List<RunRecord> runs = scheduleRuns(a, key);
            assertThat(runs)
                    .as("%s", key)
                    .hasSize(intervals)
                    .allSatisfy(r -> assertThat(r.status()).contains(RunStatus.SUCCEEDED));
            assertThat(runs.stream().map(RunRecord::owner).distinct())
                    .as("both windows ran some")
                    .hasSize(2);
            List<TriggerSkip> skipped = skips(b, key);
            assertThat(skipped).as("%s", key).hasSize(intervals).allSatisfy(sk -> {
                assertThat(sk.source()).isEqualTo(TaskSource.SCHEDULE);
                assertThat(sk.age()).isEqualTo(Duration.ofSeconds(2));
                assertThat(sk.reason())
                        .startsWith("skipped: synced 2 s ago by another process (pid "
                                + ProcessHandle.current().pid() + ")");
            });
            // each skip points at the run of its interval, the one just before it
            List<String> runIds = runs.stream().map(RunRecord::runId).toList();
            assertThat(skipped.stream().map(TriggerSkip::recentRunId).toList()).isEqualTo(runIds);
            for (int i = 0; i < intervals; i++) {
                assertThat(skipped.get(i).owner())
                        .as("skipped by the window that ticked second")
                        .isNotEqualTo(runs.get(i).owner());
            }
        }
    }

    @Test
    void aKeyThatSyncedLessThanEightyPercentOfTheIntervalAgoIsSkippedAndOneJustOverIsDue() throws Exception {
        ClientRuntime a = window(time);
        ClientRuntime b = window(time.withWallOffset(Duration.ofHours(5))); // B's wall clock runs 5 h ahead
        assertThat(tick(a)).isEqualTo(3);

        time.elapse(INTERVAL.multipliedBy(8).dividedBy(10).minusMillis(1));
        assertThat(tick(b)).as("79.99% of the interval after the sync").isZero();
        time.elapse(Duration.ofMillis(1));
        assertThat(tick(b)).as("80% of the interval after the sync").isEqualTo(3);
        assertThat(tick(a))
                .as("right after B's syncs, whose end B stamped 5 h ahead on the wall clock")
                .isZero();
        TaskKey key = TaskKey.of("alice", "course_sync");
        assertThat(skips(a, key).get(0).reason())
                .isEqualTo("skipped: synced 0 s ago by another process (pid "
                        + ProcessHandle.current().pid() + ")");
        assertThat(due(a, key, TaskSource.FOREGROUND))
                .as("coming back to the window right after")
                .isFalse();
        // the skipped foreground trigger is in the history too, newest first, above the run that made it unnecessary
        TriggerSkip focus = skips(a, key).get(0);
        assertThat(focus.source()).isEqualTo(TaskSource.FOREGROUND);
        assertThat(focus.reason()).startsWith("skipped: synced 0 s ago by another process");
        time.elapse(FOREGROUND_MIN);
        assertThat(due(a, key, TaskSource.FOREGROUND)).isTrue();
        assertThat(due(a, key, TaskSource.SCHEDULE)).isFalse();
        assertThat(due(a, key, TaskSource.MANUAL)).as("Sync now always runs").isTrue();
    }

    @Test
    void aForegroundMinimumIntervalOfZeroMakesEveryForegroundTriggerDueAndANegativeOneIsRefused() throws Exception {
        ClientRuntime a = window(time);
        assertThat(tick(a)).isEqualTo(3);
        TaskKey key = TaskKey.of("alice", "course_sync");
        StartCheck zero = a.recentSyncs().backgroundTriggers(INTERVAL, Duration.ZERO);
        assertThat(zero.skipReason(TriggerRequest.of(key, TaskSource.FOREGROUND)))
                .as("--foreground-min-interval 0s")
                .isEmpty();
        assertThat(zero.skipReason(TriggerRequest.of(key, TaskSource.SCHEDULE)))
                .as("the timer's rule is unchanged")
                .isPresent();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> a.recentSyncs().backgroundTriggers(INTERVAL, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("foreground minimum interval must not be negative, got PT-1S");
    }

    @Test
    void onlyTheTriggersTheRuleCanSkipAreAskedSoTheOthersGetTheirGrantInTheStartsTransaction() throws Exception {
        ClientRuntime a = window(time);
        TaskKey key = TaskKey.of("alice", "course_sync");
        StartCheck rule = a.recentSyncs().backgroundTriggers(INTERVAL, Duration.ofMinutes(1));
        StartCheck zero = a.recentSyncs().backgroundTriggers(INTERVAL, Duration.ZERO);
        java.util.Map<TaskSource, Boolean> asked = new java.util.EnumMap<>(TaskSource.class);
        java.util.Map<TaskSource, Boolean> askedWithZero = new java.util.EnumMap<>(TaskSource.class);
        for (TaskSource source : TaskSource.values()) {
            asked.put(source, rule.asks(TriggerRequest.of(key, source)));
            askedWithZero.put(source, zero.asks(TriggerRequest.of(key, source)));
        }
        assertThat(asked)
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of(
                        TaskSource.SCHEDULE,
                        true,
                        TaskSource.FOREGROUND,
                        true,
                        TaskSource.RETRY,
                        true,
                        TaskSource.MANUAL,
                        false,
                        TaskSource.RECOVERY,
                        false,
                        TaskSource.EDIT,
                        false)); // an edit's sync pushes it: never skipped
        assertThat(askedWithZero).containsEntry(TaskSource.FOREGROUND, false).containsEntry(TaskSource.SCHEDULE, true);
        assertThat(StartCheck.NONE.asks(TriggerRequest.of(key, TaskSource.SCHEDULE)))
                .isFalse();
    }

    @Test
    void aKeyWhoseLastSyncFailedIsNotSkipped() throws Exception {
        ClientRuntime a = window(time);
        ClientRuntime b = window(time);
        server.faults().setThrottle(1); // A's first request gets 429: its first key's run fails
        assertThat(tick(a)).isEqualTo(3);
        TaskKey failed = new TaskKey("alice", Scope.values()[0]);
        assertThat(a.store().history().lastRun(failed).orElseThrow().status()).contains(RunStatus.FAILED);

        time.elapse(Duration.ofSeconds(2));
        assertThat(tick(b)).as("only the key whose last sync failed runs again").isEqualTo(1);
        assertThat(scheduleRuns(b, failed))
                .hasSize(2)
                .first()
                .satisfies(r -> assertThat(r.status()).contains(RunStatus.SUCCEEDED));
        assertThat(skips(b, failed)).isEmpty();
        for (Scope s : Scope.values()) {
            if (s != failed.scope()) {
                assertThat(skips(b, new TaskKey("alice", s))).hasSize(1);
            }
        }
        time.elapse(Duration.ofSeconds(2));
        assertThat(tick(a)).as("now every key synced 2-4 s ago").isZero();
    }

    @Test
    void aRetryScheduledByOneWindowIsSkippedOnceAnotherWindowHasSyncedTheKey() throws Exception {
        ClientRuntime a = window(time);
        ClientRuntime b = window(time);
        TaskKey key = TaskKey.of("alice", "message_sync");
        server.faults().setThrottle(1);
        assertThat(submit(a, key)).isTrue(); // fails: A would retry
        assertThat(due(a, key, TaskSource.RETRY))
                .as("the failure is the newest run")
                .isTrue();

        time.elapse(Duration.ofSeconds(2));
        assertThat(tick(b))
                .as("B's timer syncs the failed key (and the two never synced)")
                .isEqualTo(3);
        SubmitResult retry = a.coordinator().submit(TriggerRequest.of(key, TaskSource.RETRY));

        assertThat(retry)
                .isInstanceOfSatisfying(
                        SubmitResult.Skipped.class,
                        sk -> assertThat(sk.reason())
                                .isEqualTo("the key synced since the failure by another process (pid "
                                        + ProcessHandle.current().pid() + ")"));
        assertThat(a.store().history().history(key, 10)).hasSize(2);
        assertThat(due(b, key, TaskSource.MANUAL)).as("Sync now always runs").isTrue();
    }

    @Test
    void aSuccessTimedOnAnotherMonotonicClockIsNeverTakenAsRecent() throws Exception {
        ClientRuntime a = window(time);
        ClientRuntime elsewhere = window(new ManualTime()); // another machine's clock (a shared PostgreSQL store)
        assertThat(tick(a)).isEqualTo(3);
        time.elapse(Duration.ofSeconds(2));
        assertThat(tick(elsewhere)).as("its age cannot be known: due").isEqualTo(3);
        TaskKey key = TaskKey.of("alice", "course_sync");
        assertThat(a.recentSyncs().check(key, INTERVAL))
                .as("and the other way round")
                .isInstanceOf(RecentSyncGate.Verdict.Due.class);
        assertThat(elsewhere.recentSyncs().check(key, INTERVAL))
                .as("its own run, on its own clock")
                .isInstanceOf(RecentSyncGate.Verdict.Recent.class);
        assertThat(skips(a, key)).isEmpty();
    }

    @Test
    void twoTimersThatFireTogetherSyncOnceTheCoordinatorChecksAgainWithTheLeaseGranted() throws Exception {
        ClientRuntime a = window(time);
        ClientRuntime b = window(time);
        TaskKey key = TaskKey.of("alice", "backup");
        assertThat(submit(a, key)).isTrue();
        time.elapse(INTERVAL);
        // both timers fire: both quick checks see the old sync ...
        assertThat(due(a, key, TaskSource.SCHEDULE)).isTrue();
        assertThat(due(b, key, TaskSource.SCHEDULE)).isTrue();
        // ... A's run starts and ends before B's trigger reaches its coordinator
        assertThat(submit(a, key)).isTrue();
        time.elapse(Duration.ofMillis(300));
        SubmitResult r = b.coordinator().submit(TriggerRequest.of(key, TaskSource.SCHEDULE));

        assertThat(r)
                .isInstanceOfSatisfying(
                        SubmitResult.Skipped.class,
                        sk -> assertThat(sk.reason())
                                .isEqualTo("skipped: synced 0 s ago by another process (pid "
                                        + ProcessHandle.current().pid() + ")"));
        assertThat(scheduleRuns(a, key)).hasSize(2);
        assertThat(skips(a, key)).hasSize(1);
        assertThat(b.registry().lease(key).orElseThrow().isHeld())
                .as("the lease was given back")
                .isFalse();
    }
}
