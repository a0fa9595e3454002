package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
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
import org.leasesync.run.TriggerRequest;
import org.leasesync.sync.NewestRun;
import org.leasesync.sync.RecentSyncGate;
import org.leasesync.sync.TriggerSkip;
import org.leasesync.testing.ManualTime;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * The recent-sync storage on both vendors: a run's end is stamped on the store's monotonic clock in
 * the statement that ends it, the newest run is the highest epoch, a closed-by-recovery run has no
 * stamp, and skips come back newest first.
 */
@PostgresTest
class RecentSyncsContractTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    static Stream<Arguments> stores() {
        Supplier<LocalStore> h2 = LocalStore::openInMemory;
        Supplier<LocalStore> pg = () -> {
            Postgres.Db db = Postgres.newDatabase();
            return LocalStore.of(
                    Database.open(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + db.name(), 4));
        };
        return Stream.of(Arguments.of("H2", h2), Arguments.of("PostgreSQL", pg));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void runEndsAreStampedAndSkipsRecorded(String vendor, Supplier<LocalStore> open) {
        ManualTime time = new ManualTime();
        OwnerId a = new OwnerId("host", 11, 1, "a");
        try (LocalStore store = open.get()) {
            TaskRegistry reg =
                    new TaskRegistry(store.leases(), a, Duration.ofSeconds(60), time, OwnerLiveness.neverProvable());
            JdbcRunStore runs = new JdbcRunStore(store.database(), time);
            JdbcRecentSyncs recent = new JdbcRecentSyncs(store.database());
            assertThat(recent.newestRun(KEY)).isEmpty();

            HeldLease first = reg.tryAcquire(KEY).orElseThrow();
            runs.insertRun(first.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, time.now(), Optional.empty());
            assertThat(recent.newestRun(KEY).orElseThrow().endedMonoNanos())
                    .as("running: no stamp")
                    .isEmpty();
            time.elapse(Duration.ofSeconds(5));
            long endedAt = time.monotonicNanos();
            runs.finishRun(first.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), time.now());
            reg.release(first);

            NewestRun newest = recent.newestRun(KEY).orElseThrow();
            assertThat(newest.runId()).isEqualTo("run-1");
            assertThat(newest.owner()).isEqualTo(a.asString());
            assertThat(newest.status()).contains(RunStatus.SUCCEEDED);
            assertThat(newest.endedMonoNanos()).hasValue(endedAt);
            assertThat(newest.monoClock()).isEqualTo(time.monotonicClockId());

            time.elapse(Duration.ofSeconds(7));
            RecentSyncGate gate = new RecentSyncGate(recent, time, new OwnerId("host", 22, 1, "b"));
            assertThat(gate.backgroundTriggers(Duration.ofMinutes(1), Duration.ofMinutes(1))
                            .skipReason(TriggerRequest.of(KEY, TaskSource.SCHEDULE)))
                    .contains("skipped: synced 7 s ago by another process (pid 11)");

            HeldLease second = reg.tryAcquire(KEY).orElseThrow();
            runs.insertRun(second.fence(), "run-2", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
            reg.release(second); // as if its owner died mid-run
            HeldLease taker = reg.tryAcquire(KEY).orElseThrow();
            runs.closeAbandonedRun(
                    taker.fence(), "run-2", RunStatus.SUCCEEDED, "completed (found done by recovery)", time.now());
            reg.release(taker);
            NewestRun closed = recent.newestRun(KEY).orElseThrow();
            assertThat(closed.runId()).as("the highest epoch").isEqualTo("run-2");
            assertThat(closed.endedMonoNanos())
                    .as("closed by recovery: when it ended is unknown")
                    .isEmpty();
            assertThat(gate.check(KEY, Duration.ofHours(1))).isInstanceOf(RecentSyncGate.Verdict.Due.class);

            List<TriggerSkip> skips = recent.skips(KEY, 10);
            assertThat(skips).hasSize(1);
            assertThat(skips.get(0).recentRunId()).isEqualTo("run-1");
            assertThat(skips.get(0).age()).isEqualTo(Duration.ofSeconds(7));
            assertThat(skips.get(0).at()).isEqualTo(time.now());
            recent.recordSkip(
                    new TriggerSkip(KEY, TaskSource.SCHEDULE, "o", time.now(), "run-2", Duration.ZERO, "later"));
            assertThat(recent.skips(KEY, 10))
                    .extracting(TriggerSkip::reason)
                    .containsExactly("later", "skipped: synced 7 s ago by another process (pid 11)");
            assertThat(recent.skips(KEY, 1)).hasSize(1);
        }
    }
}
