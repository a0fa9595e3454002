package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOutcome;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.ManualTime;

/** Run-history retention on a real H2 database, through the real coordinator. */
class RunHistoryRetentionTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final TaskKey OTHER = TaskKey.of("bob", "course_sync");

    final LocalStore store = LocalStore.openInMemory();
    final ManualTime time = new ManualTime();
    final ExecutorService workers = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() {
        workers.shutdownNow();
        store.close();
    }

    private int nonce;

    private Coordinator coordinator(JdbcRunStore runs, List<RunOutcome> outcomes) {
        TaskRegistry registry = new TaskRegistry(
                store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, Integer.toHexString(++nonce)),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        return new Coordinator(
                registry,
                runs,
                ctx -> outcomes.isEmpty() ? RunOutcome.succeeded() : outcomes.remove(0),
                workers,
                new LeaseKeeper(registry),
                null,
                null);
    }

    private static void runOnce(Coordinator c, TaskKey key) throws Exception {
        SubmitResult r = c.submit(key, TaskSource.MANUAL);
        assertThat(r).isInstanceOf(SubmitResult.Started.class);
        ((SubmitResult.Started) r).handle().completion().get(30, TimeUnit.SECONDS);
    }

    private long rows(String sql) throws Exception {
        return store.database().query("count", c -> {
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    @Test
    void keepsTheNewestRunsAndTheYoungOnesAndPrunesTheRestInBoundedBatchesAfterEachRun() throws Exception {
        JdbcRunStore runs =
                new JdbcRunStore(store.database(), time).withRetention(new RunRetention(5, Duration.ofDays(1), 4));
        List<RunOutcome> outcomes = new ArrayList<>();
        outcomes.add(RunOutcome.succeeded()); // epoch 1: the only success, kept whatever its age
        for (int i = 0; i < 19; i++) {
            outcomes.add(RunOutcome.failed("offline " + i));
        }
        Coordinator c = coordinator(new JdbcRunStore(store.database(), time), outcomes); // no pruning yet
        for (int i = 0; i < 20; i++) {
            runOnce(c, KEY);
            time.elapse(Duration.ofHours(1));
        }
        runOnce(c, OTHER);
        // 20 runs of KEY, started hourly: epochs 1..20; the last 24 hours hold all of them.
        assertThat(runs.pruneHistory(KEY, time.now())).isZero(); // all younger than a day

        time.elapse(Duration.ofDays(2));
        assertThat(runs.pruneHistory(KEY, time.now())).isEqualTo(4); // bounded by the batch size
        assertThat(runs.history(KEY, 100))
                .extracting(RunRecord::epoch)
                .doesNotContain(2L, 3L, 4L, 5L)
                .contains(1L, 6L); // oldest first
        int deleted = 4;
        for (int i = 0; i < 10; i++) {
            deleted += runs.pruneHistory(KEY, time.now());
        }
        assertThat(deleted).isEqualTo(14); // epochs 2..15; the newest 5 (16..20) and the last success stay
        assertThat(runs.history(KEY, 100)).extracting(RunRecord::epoch).containsExactly(20L, 19L, 18L, 17L, 16L, 1L);
        assertThat(runs.lastSucceeded(KEY)).map(RunRecord::epoch).contains(1L);
        assertThat(runs.history(OTHER, 100)).hasSize(1); // another key is never touched
        assertThat(
                        rows(
                                "SELECT COUNT(*) FROM run_trigger t WHERE NOT EXISTS (SELECT 1 FROM run r WHERE r.run_id = t.run_id)"))
                .isZero();
        assertThat(
                        rows(
                                "SELECT COUNT(*) FROM run_stage t WHERE NOT EXISTS (SELECT 1 FROM run r WHERE r.run_id = t.run_id)"))
                .isZero();

        // Through the coordinator: the end of a run prunes (one batch), and a running run is never pruned.
        Coordinator pruning = coordinator(runs.withRetention(new RunRetention(1, Duration.ZERO, 2)), new ArrayList<>());
        runOnce(pruning, KEY);
        assertThat(runs.history(KEY, 100)).hasSize(7 - 2);
        HeldLease held =
                pruning.registry().tryAcquire(TaskKey.of("alice", "backup")).orElseThrow();
        runs.insertRun(held.fence(), "still-running", TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
        time.elapse(Duration.ofDays(40));
        assertThat(runs.withRetention(new RunRetention(1, Duration.ZERO, 100))
                        .pruneHistory(TaskKey.of("alice", "backup"), time.now()))
                .isZero();
        assertThat(runs.run("still-running")).map(RunRecord::status).contains(Optional.of(RunStatus.RUNNING));
    }

    @Test
    void theNewestRunReadsWalkTheIndexInsteadOfSortingEveryRunOfTheKey() throws Exception {
        for (String sql : List.of(
                "SELECT epoch FROM run WHERE task_key = 'k'" + JdbcRunHistory.BY_EPOCH + " FETCH FIRST 1 ROWS ONLY",
                "SELECT run_id FROM run WHERE task_key = 'k' AND status = 'running'" + JdbcRunHistory.BY_STATUS_EPOCH
                        + " FETCH FIRST 1 ROWS ONLY",
                "SELECT record_id FROM local_record WHERE user_id = 'alice' AND scope = 'backup'"
                        + " ORDER BY user_id, scope, record_id FETCH FIRST 201 ROWS ONLY")) {
            String plan = store.database().query("explain", c -> {
                try (Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("EXPLAIN " + sql)) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            assertThat(plan).as(sql).contains("index sorted");
        }
    }

    @Test
    void badRetentionSettingsAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> new RunRetention(0, Duration.ofDays(1), 10))
                .hasMessageContaining("keepRuns must be >= 1, got 0");
        assertThatThrownBy(() -> new RunRetention(1, Duration.ofDays(-1), 10)).hasMessageContaining("PT-24H");
        assertThatThrownBy(() -> new RunRetention(1, Duration.ofDays(1), 0))
                .hasMessageContaining("batchSize must be 1..10000, got 0");
        assertThat(RunRetention.DEFAULT).isEqualTo(new RunRetention(1_000, Duration.ofDays(30), 500));
    }
}
