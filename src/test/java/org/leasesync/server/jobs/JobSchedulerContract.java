package org.leasesync.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.store.SqlDialect;
import org.leasesync.testing.ManualTime;

/**
 * {@link JobScheduler}s of several instances on one real database (H2 and PostgreSQL, subclasses):
 * each due occurrence runs on exactly one of them, however they race; a manual run starts or joins
 * the holder; closing lets a paused run go and leaves it for the next instance to resume.
 */
abstract class JobSchedulerContract {

    static final Duration INTERVAL = Duration.ofSeconds(1);
    static final Instant EPOCH_SLOT_1000 = Instant.ofEpochMilli(1000 * INTERVAL.toMillis());

    SchemaDb db;
    final List<JobScheduler> schedulers = new ArrayList<>();
    final ExecutorService threads = Executors.newFixedThreadPool(3);

    abstract SqlDialect dialect();

    @BeforeEach
    void open() {
        db = SchemaDb.of(dialect());
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        schedulers.forEach(JobScheduler::close);
        db.close();
    }

    JobScheduler scheduler(String instance, org.leasesync.lease.TimeSource time, JobSettings settings, JobHooks hooks) {
        OwnerId owner = new OwnerId(
                "host-" + instance, 100 + schedulers.size(), 1, Integer.toHexString(0xa0 + schedulers.size()));
        JobScheduler s = new JobScheduler(
                db.db,
                StandardJobs.create(Duration.ofHours(24), settings, instance, (c, id) -> false),
                settings,
                instance,
                owner,
                time,
                OwnerLiveness.neverProvable(),
                hooks);
        schedulers.add(s);
        return s;
    }

    void oldAuditRows(int n, Instant now) throws Exception {
        for (int i = 0; i < n; i++) {
            db.update(
                    "INSERT INTO request_audit (at_ms, path_user, scope, op, status, applied, duplicates, conflicts)"
                            + " VALUES (?, 'alice', 'backup', 'pull', 200, '', '', '')",
                    now.minusSeconds(8 * 24 * 3600).toEpochMilli());
        }
    }

    @Test
    void eachDueOccurrenceRunsOnExactlyOneOfThreeSchedulersRacingForIt() throws Exception {
        WallTime time = new WallTime(EPOCH_SLOT_1000);
        JobSettings settings = JobSettings.defaults().withAllIntervals(INTERVAL).withBatchSize(2);
        List<JobScheduler> three = List.of(
                scheduler("i0", time, settings, JobHooks.NONE),
                scheduler("i1", time, settings, JobHooks.NONE),
                scheduler("i2", time, settings, JobHooks.NONE));
        int slots = 12;
        CyclicBarrier go = new CyclicBarrier(3);
        for (int slot = 1000; slot < 1000 + slots; slot++) {
            time.set(Instant.ofEpochMilli(slot * INTERVAL.toMillis()));
            oldAuditRows(3, time.now());
            List<Future<?>> ticks = new ArrayList<>();
            for (JobScheduler s : three) {
                ticks.add(threads.submit(() -> {
                    go.await(30, TimeUnit.SECONDS);
                    s.tick();
                    return null;
                }));
            }
            for (Future<?> f : ticks) {
                f.get(60, TimeUnit.SECONDS);
            }
        }

        Map<String, List<long[]>> byJob = new HashMap<>(); // job -> [slot, epoch, runId]
        Set<String> instances = new HashSet<>();
        try (Connection c = db.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT job_name, slot, epoch, run_id, result, run_trigger, instance_id FROM job_runs ORDER BY run_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                assertThat(rs.getString(5)).as("run %d", rs.getLong(4)).isEqualTo("ok");
                assertThat(rs.getString(6)).isEqualTo("schedule");
                byJob.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                        .add(new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4)});
                instances.add(rs.getString(7));
            }
        }
        assertThat(byJob).containsOnlyKeys(StandardJobs.NAMES);
        for (Map.Entry<String, List<long[]>> e : byJob.entrySet()) {
            List<Long> slotsRun = e.getValue().stream().map(r -> r[0]).toList();
            assertThat(slotsRun)
                    .as("one run per occurrence of %s", e.getKey())
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(1000, 1000 + slots)
                            .boxed()
                            .toList());
            List<Long> epochs = e.getValue().stream().map(r -> r[1]).toList();
            assertThat(epochs)
                    .as("a new lease, a higher epoch, per run of %s", e.getKey())
                    .isSorted()
                    .doesNotHaveDuplicates();
        }
        assertThat(instances).isSubsetOf("i0", "i1", "i2");
        assertThat(db.count("SELECT COUNT(*) FROM request_audit"))
                .as("prune-audit deleted every old row")
                .isZero();
        assertThat(db.count("SELECT COUNT(*) FROM job_checkpoints")).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM lease WHERE owner_id IS NOT NULL"))
                .as("all released")
                .isZero();
    }

    /**
     * A clock stepped back by hours (or a last occurrence recorded by an instance whose
     * clock runs hours ahead) does not stop the jobs until this clock catches up: after one interval
     * without a newer occurrence, the next one runs here, once per interval.
     */
    @Test
    void aClockSteppedBackByHoursStillRunsEachJobOncePerInterval() throws Exception {
        ManualTime time = new ManualTime(EPOCH_SLOT_1000);
        JobScheduler s = scheduler(
                "i0", time, JobSettings.defaults().withAllIntervals(INTERVAL).withBatchSize(2), JobHooks.NONE);
        s.tick();
        assertThat(slotsRun()).allSatisfy((job, slots) -> assertThat(slots).containsExactly(1000L));
        time.jumpWall(Duration.ofHours(-3));
        s.tick();
        time.elapse(INTERVAL.dividedBy(2));
        s.tick();
        assertThat(slotsRun())
                .as("within an interval of the step")
                .allSatisfy((job, slots) -> assertThat(slots).hasSize(1));
        time.elapse(INTERVAL.dividedBy(2));
        s.tick();
        time.elapse(INTERVAL);
        s.tick();
        s.tick();
        assertThat(slotsRun())
                .hasSize(StandardJobs.NAMES.size())
                .allSatisfy((job, slots) -> assertThat(slots).containsExactly(1000L, 1001L, 1002L));
    }

    /** Instance a's clock runs 3 h ahead; b's is right. While a runs the jobs b never doubles them; when a stops, b goes on. */
    @Test
    void anInstanceHoursBehindNeitherDoublesNorStopsTheJobsOfOneHoursAhead() throws Exception {
        ManualTime behind = new ManualTime(EPOCH_SLOT_1000);
        ManualTime ahead = new ManualTime(EPOCH_SLOT_1000.plus(Duration.ofHours(3)));
        JobSettings settings = JobSettings.defaults().withAllIntervals(INTERVAL).withBatchSize(2);
        JobScheduler a = scheduler("ahead", ahead, settings, JobHooks.NONE);
        JobScheduler b = scheduler("behind", behind, settings, JobHooks.NONE);
        for (int i = 0; i < 3; i++) {
            a.tick();
            b.tick();
            ahead.elapse(INTERVAL);
            behind.elapse(INTERVAL);
        }
        long first = 1000 + Duration.ofHours(3).dividedBy(INTERVAL);
        assertThat(slotsRun())
                .allSatisfy((job, slots) -> assertThat(slots).containsExactly(first, first + 1, first + 2));
        for (int i = 0; i < 4; i++) { // a is gone
            b.tick();
            behind.elapse(INTERVAL.dividedBy(2));
        }
        assertThat(slotsRun())
                .as("b ran the occurrences after a's, one per interval")
                .allSatisfy((job, slots) ->
                        assertThat(slots).containsExactly(first, first + 1, first + 2, first + 3, first + 4));
    }

    /** Slots run per job, in run order. */
    Map<String, List<Long>> slotsRun() throws Exception {
        Map<String, List<Long>> m = new HashMap<>();
        try (Connection c = db.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT job_name, slot FROM job_runs WHERE run_trigger = 'schedule' ORDER BY run_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                m.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getLong(2));
            }
        }
        return m;
    }

    @Test
    void aManualRunStartsHereOrJoinsTheHolderWhereverItRuns() throws Exception {
        WallTime time = new WallTime(EPOCH_SLOT_1000);
        oldAuditRows(5, time.now());
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        JobSettings settings = JobSettings.defaults().withScheduled(false).withBatchSize(2);
        JobScheduler a = scheduler("instance-a", time, settings, (job, runId, batches) -> {
            paused.countDown();
            go.await();
        });
        JobScheduler b = scheduler("instance-b", time, settings, JobHooks.NONE);

        RunRequest started = a.requestRun(StandardJobs.PRUNE_AUDIT);
        assertThat(started).isInstanceOf(RunRequest.Started.class);
        RunRequest.Started s = (RunRequest.Started) started;
        assertThat(s.trigger()).isEqualTo(JobTrigger.MANUAL);
        assertThat(s.instanceId()).isEqualTo("instance-a");
        assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();

        for (JobScheduler asker : List.of(a, b)) {
            RunRequest joined = asker.requestRun(StandardJobs.PRUNE_AUDIT);
            assertThat(joined).isInstanceOf(RunRequest.Joined.class);
            RunRequest.Joined j = (RunRequest.Joined) joined;
            assertThat(j.holderInstanceId()).isEqualTo("instance-a");
            assertThat(j.holderOwner()).isEqualTo(a.owner().asString());
            assertThat(j.epoch()).isEqualTo(s.epoch());
            assertThat(j.running().runId()).isEqualTo(s.runId());
            ObjectNode view = JobViews.runRequest(joined);
            assertThat(view.get("outcome").asText()).isEqualTo("joined");
            assertThat(view.get("holder").get("instanceId").asText()).isEqualTo("instance-a");
        }
        assertThatThrownBy(() -> b.requestRun("vacuum"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown job 'vacuum'")
                .hasMessageContaining(StandardJobs.PURGE_TOMBSTONES);

        JsonNode held = job(b.status(5), StandardJobs.PRUNE_AUDIT);
        assertThat(held.get("interval").asText()).isEqualTo("off");
        assertThat(held.get("lease").get("held").asBoolean()).isTrue();
        assertThat(held.get("lease").get("instanceId").asText()).isEqualTo("instance-a");
        assertThat(held.get("lease").get("epoch").asLong()).isEqualTo(s.epoch());
        assertThat(held.get("checkpoint").get("processed").asLong()).isEqualTo(2);
        assertThat(held.get("checkpoint").get("position").get("afterSeq").asLong())
                .isEqualTo(2);
        assertThat(held.get("lastRuns").get(0).get("result").asText()).isEqualTo("running");

        go.countDown();
        JsonNode done = awaitJob(
                b,
                StandardJobs.PRUNE_AUDIT,
                j -> j.get("lastRuns").get(0).get("result").asText().equals("ok"));
        JsonNode run = done.get("lastRuns").get(0);
        assertThat(run.get("runId").asLong()).isEqualTo(s.runId());
        assertThat(run.get("trigger").asText()).isEqualTo("manual");
        assertThat(run.get("instanceId").asText()).isEqualTo("instance-a");
        assertThat(run.get("processed").asLong()).isEqualTo(5);
        assertThat(run.get("slot").isNull()).isTrue();
        assertThat(done.get("checkpoint").isNull()).isTrue();
        assertThat(done.get("lastCompletedSlot").isNull())
                .as("a manual run completes no occurrence")
                .isTrue();
    }

    @Test
    void closingLetsAPausedRunGoInterruptedAndAnotherInstanceResumesItAsATakeover() throws Exception {
        WallTime time = new WallTime(EPOCH_SLOT_1000);
        oldAuditRows(5, time.now());
        JobSettings paused = JobSettings.defaults()
                .withScheduled(false)
                .withBatchSize(2)
                .withPauseAfterFirstBatch(Set.of(StandardJobs.PRUNE_AUDIT));
        JobScheduler a = scheduler("instance-a", time, paused, JobHooks.NONE);
        RunRequest.Started s = (RunRequest.Started) a.requestRun(StandardJobs.PRUNE_AUDIT);
        awaitJob(
                a,
                StandardJobs.PRUNE_AUDIT,
                j -> !j.get("checkpoint").isNull()
                        && j.get("checkpoint").get("processed").asLong() == 2);

        a.close();
        JsonNode left = job(scheduler("viewer", time, paused, JobHooks.NONE).status(5), StandardJobs.PRUNE_AUDIT);
        assertThat(left.get("lastRuns").get(0).get("result").asText()).isEqualTo("interrupted");
        assertThat(left.get("checkpoint").get("runId").asLong()).isEqualTo(s.runId());
        assertThat(left.get("lease").get("held").asBoolean())
                .as("released on close")
                .isFalse();

        JobScheduler b = scheduler("instance-b", time, JobSettings.defaults().withBatchSize(2), JobHooks.NONE);
        b.tick();
        JsonNode resumed = job(b.status(5), StandardJobs.PRUNE_AUDIT);
        JsonNode run = resumed.get("lastRuns").get(0);
        assertThat(run.get("trigger").asText()).isEqualTo("takeover");
        assertThat(run.get("resumedFrom").asLong()).isEqualTo(s.runId());
        assertThat(run.get("instanceId").asText()).isEqualTo("instance-b");
        assertThat(run.get("result").asText()).isEqualTo("ok");
        assertThat(run.get("processed").asLong()).isEqualTo(5);
        assertThat(db.count("SELECT COUNT(*) FROM request_audit")).isZero();
    }

    @Test
    void theTickFollowsTheShortestScheduledInterval() {
        WallTime time = new WallTime(EPOCH_SLOT_1000);
        assertThat(scheduler("x", time, JobSettings.defaults(), JobHooks.NONE).tickPeriod())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(scheduler(
                                "y",
                                time,
                                JobSettings.defaults().withInterval(StandardJobs.PRUNE_AUDIT, INTERVAL),
                                JobHooks.NONE)
                        .tickPeriod())
                .isEqualTo(Duration.ofMillis(250));
        assertThat(scheduler("z", time, JobSettings.defaults().withAllIntervals(Duration.ofMillis(100)), JobHooks.NONE)
                        .tickPeriod())
                .isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void aSoleInstanceWithNothingDueSleepsUntilTheNextOccurrenceInsteadOfTicking() {
        // 15 s into a minute: the shortest default interval (release stale claims, 1 min) comes next in 45 s
        Instant start = Instant.ofEpochMilli(1_000 * 60_000L + 15_000);
        WallTime time = new WallTime(start);
        JobScheduler sole =
                scheduler("sole", time, JobSettings.defaults(), JobHooks.NONE).soleInstance();
        JobScheduler shared = scheduler("shared", time, JobSettings.defaults(), JobHooks.NONE);

        assertThat(sole.tick())
                .as("every job ran: the next tick looks again after the tick period")
                .isEqualTo(1_000);
        assertThat(sole.tick()).as("nothing due before the next minute").isEqualTo(45_000);
        assertThat(shared.tick())
                .as("an instance sharing its database keeps ticking")
                .isEqualTo(1_000);
        time.set(start.plusSeconds(30));
        assertThat(sole.tick()).isEqualTo(15_000);
        time.set(start.plusSeconds(45));
        assertThat(sole.tick()).as("the next occurrence ran").isEqualTo(1_000);
        time.set(start.plusSeconds(50).plus(Duration.ofHours(3)));
        assertThat(sole.tick()).as("hours later every job is due again").isEqualTo(1_000);
        assertThat(sole.tick()).isEqualTo(55_000);
    }

    static JsonNode job(ObjectNode status, String name) {
        for (JsonNode j : status.get("jobs")) {
            if (j.get("name").asText().equals(name)) {
                return j;
            }
        }
        throw new AssertionError("no job " + name + " in " + status);
    }

    static JsonNode awaitJob(JobScheduler s, String name, Predicate<JsonNode> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = job(s.status(5), name);
            if (last.get("lastRuns").size() > 0 && condition.test(last)) {
                return last;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("job " + name + " did not reach the expected state within 30 s; last: " + last);
    }
}
