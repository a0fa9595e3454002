package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.ManualTime;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * One trigger is recorded once, on both vendors: a merge repeated with the same trigger id records
 * nothing more — also when threads record it at once — and a run that answers a trigger that had
 * joined an earlier run takes that record over.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@PostgresTest
class TriggerIdContractTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    static Stream<Arguments> stores() {
        Supplier<LocalStore> h2 = LocalStore::openInMemory;
        Supplier<LocalStore> pg = () -> {
            Postgres.Db db = Postgres.newDatabase();
            return LocalStore.of(
                    Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 8));
        };
        return Stream.of(Arguments.of("H2", h2), Arguments.of("PostgreSQL", pg));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void aMergeRepeatedWithItsTriggerIdIsRecordedOnce(String vendor, Supplier<LocalStore> open) {
        ManualTime time = new ManualTime();
        try (LocalStore store = open.get()) {
            JdbcRunStore runs = new JdbcRunStore(store.database(), time);
            HeldLease lease = registry(store, time).tryAcquire(KEY).orElseThrow();
            runs.insertRun(
                    lease.fence(),
                    "run-1",
                    TaskSource.SCHEDULE,
                    "t-first",
                    Stage.PULLING,
                    time.now(),
                    Optional.empty());
            for (int i = 0; i < 3; i++) {
                assertThat(runs.recordMergedTrigger("run-1", "t-join", TaskSource.MANUAL, time.now()))
                        .isTrue();
            }
            assertThat(runs.recordMergedTrigger("run-1", "t-other", TaskSource.FOREGROUND, time.now()))
                    .isTrue();
            assertThat(runs.recordMergedTrigger("no-such-run", "t-x", TaskSource.MANUAL, time.now()))
                    .isFalse();
            assertThat(store.history().run("run-1").orElseThrow().mergedSources())
                    .containsExactly(TaskSource.MANUAL, TaskSource.FOREGROUND);
            assertThat(triggerIds(store)).containsExactlyInAnyOrder("t-first", "t-join", "t-other");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void threadsRecordingOneTriggerAtOnceRecordItOnce(String vendor, Supplier<LocalStore> open) throws Exception {
        ManualTime time = new ManualTime();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try (LocalStore store = open.get()) {
            JdbcRunStore runs = new JdbcRunStore(store.database(), time);
            HeldLease lease = registry(store, time).tryAcquire(KEY).orElseThrow();
            runs.insertRun(
                    lease.fence(),
                    "run-1",
                    TaskSource.SCHEDULE,
                    "t-first",
                    Stage.PULLING,
                    time.now(),
                    Optional.empty());
            for (int round = 0; round < 20; round++) {
                String id = "t-" + round;
                CyclicBarrier start = new CyclicBarrier(6);
                List<Future<Boolean>> all = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    all.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return runs.recordMergedTrigger("run-1", id, TaskSource.MANUAL, time.now());
                    }));
                }
                for (Future<Boolean> f : all) {
                    assertThat(f.get(30, TimeUnit.SECONDS)).isTrue();
                }
            }
            assertThat(store.history().run("run-1").orElseThrow().mergedSources())
                    .hasSize(20);
            List<String> ids = triggerIds(store);
            assertThat(ids).doesNotHaveDuplicates().hasSize(21);
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void aRunThatAnswersAJoinedTriggerTakesItsRecordOver(String vendor, Supplier<LocalStore> open) {
        ManualTime time = new ManualTime();
        try (LocalStore store = open.get()) {
            JdbcRunStore runs = new JdbcRunStore(store.database(), time);
            TaskRegistry reg = registry(store, time);
            HeldLease first = reg.tryAcquire(KEY).orElseThrow();
            runs.insertRun(
                    first.fence(), "run-1", TaskSource.SCHEDULE, "t-1", Stage.PULLING, time.now(), Optional.empty());
            runs.recordMergedTrigger("run-1", "t-2", TaskSource.MANUAL, time.now());
            runs.finishRun(first.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());
            reg.release(first);

            HeldLease second = reg.tryAcquire(KEY).orElseThrow(); // t-2 asked again and got the key
            runs.insertRun(
                    second.fence(), "run-2", TaskSource.MANUAL, "t-2", Stage.PULLING, time.now(), Optional.empty());
            // a repeated start of the same trigger (after a broken connection) keeps run-2's record
            runs.insertRun(
                    second.fence(), "run-3", TaskSource.MANUAL, "t-2", Stage.PULLING, time.now(), Optional.empty());

            assertThat(store.history().run("run-1").orElseThrow().mergedSources())
                    .isEmpty();
            assertThat(triggerIds(store)).containsExactlyInAnyOrder("t-1", "t-2");
            assertThat(runOf(store, "t-2")).isEqualTo("run-2");
        }
    }

    private static TaskRegistry registry(LocalStore store, ManualTime time) {
        return new TaskRegistry(
                store.leases(),
                new OwnerId("host", 11, 1, "a"),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
    }

    private static List<String> triggerIds(LocalStore store) {
        return store.database().query("trigger ids", c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps =
                            c.prepareStatement("SELECT trigger_id FROM run_trigger WHERE trigger_id IS NOT NULL");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        });
    }

    private static String runOf(LocalStore store, String triggerId) {
        return store.database().query("run of a trigger", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT run_id FROM run_trigger WHERE trigger_id = ?")) {
                ps.setString(1, triggerId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        });
    }
}
