package org.leasesync.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.leasesync.server.jobs.StandardJobs;

/**
 * The server's jobs on real {@code leasesync serve --db} processes
 * ({@link ServerProcess}) on one PostgreSQL. Per round, on a fresh database:
 * <ol>
 *   <li><b>Due → started.</b> {@code instances} servers schedule three jobs ({@code
 *       expire-idempotency-keys}, {@code purge-tombstones}, {@code release-stale-claims}) every
 *       {@code interval}, so their occurrences fall due together, as every job's do at the top of
 *       each hour in production. For every occurrence: its run's {@code started_at_ms}
 *       ({@code job_runs}) minus the slot's due time (slot × interval), over the whole round.</li>
 *   <li><b>Kill → takeover.</b> A further server, the <em>victim</em>, runs {@code prune-audit}
 *       (the others only resume it), pausing after its first batch ({@code --job-pause}); after a
 *       random wait below a third of the TTL it is killed ({@code kill -9}). Figure: the takeover
 *       run's {@code started_at_ms} minus the moment of the kill. Two modes, alternated:
 *       <em>provable</em> (same host: the takers see the victim's pid gone) and <em>unprovable</em>
 *       (the victim in a UTS namespace of its own with another host name, as on another machine:
 *       the takers wait until they have seen its lease unchanged for a TTL); there also the time
 *       from the victim's last renewal ({@code lease.renewed_at_ms}) to the takeover.</li>
 * </ol>
 * The runner fails on any broken promise: an occurrence completed twice, two runs of a job under one
 * epoch, a lease taken from the live victim, a takeover that does not resume the victim's run from
 * its checkpoint (all rows deleted, the victim's run {@code interrupted}, a higher epoch), and an
 * unprovable takeover less than a TTL after the victim's last renewal. Needs root for
 * {@code unshare --uts} and the machine's clock shared by all processes (one host).
 */
final class JobBench {

    /** The jobs whose due → started time is measured. */
    private static final List<String> TIMED = List.of(
            StandardJobs.EXPIRE_IDEMPOTENCY_KEYS, StandardJobs.PURGE_TOMBSTONES, StandardJobs.RELEASE_STALE_CLAIMS);
    /** Old audit rows the victim's {@code prune-audit} run has to delete, one per batch. */
    private static final int AUDIT_ROWS = 5;
    /** Times the audit rows are seeded again when a taker finished the victim's run before it paused. */
    private static final int MAX_RESEEDS = 3;
    /** Wall-clock milliseconds two processes' stamps may disagree by (both truncate to ms). */
    private static final long STAMP_SLACK_MS = 5;

    /**
     * @param rounds rounds, each on a fresh database with new servers (new tick phases)
     * @param instances servers that schedule the timed jobs and take over the victim's run
     * @param interval the timed jobs' interval (the scheduler ticks every quarter of it, 50 ms..1 s)
     * @param occurrences occurrences of each timed job to wait for before the kills begin
     * @param killsPerMode kills per mode and round
     * @param ttl every server's job lease TTL ({@code --job-lease-ttl})
     * @param serverJvm options of every server JVM
     * @param postgres where the databases come from ({@code PG} or {@code PG_NOFSYNC})
     * @param seed seed of the random waits before the kills
     */
    record Settings(
            int rounds,
            int instances,
            Duration interval,
            int occurrences,
            int killsPerMode,
            Duration ttl,
            List<String> serverJvm,
            BenchDatabases.Backend postgres,
            long seed) {}

    private JobBench() {}

    /** The scheduler's tick for a shortest interval (JobScheduler#tickPeriod). */
    static Duration tick(Duration interval) {
        return Duration.ofMillis(Math.max(50, Math.min(1_000, interval.toMillis() / 4)));
    }

    static void run(Figures f, Settings s, BenchDatabases dbs, Path workDir) throws Exception {
        f.note("jobs: " + s.instances() + " servers scheduling " + String.join(", ", TIMED) + " every "
                + s.interval().toMillis() + " ms (tick " + tick(s.interval()).toMillis() + " ms), job lease TTL "
                + s.ttl().toMillis() + " ms, " + s.killsPerMode()
                + " kills per mode and round; servers: " + String.join(" ", s.serverJvm()));
        Random random = new Random(s.seed());
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        long missed = 0;
        for (int round = 0; round < s.rounds(); round++) {
            missed += runRound(s, round, dbs, workDir.resolve("jobs-" + round), random, samples);
        }
        f.sample("jobs.tick", tick(s.interval()).toMillis(), "ms");
        f.sample("jobs.ttl", s.ttl().toMillis(), "ms");
        f.sample(
                "jobs.due_to_started.runs",
                samples.getOrDefault("due", List.of()).size(),
                "runs");
        f.sample("jobs.missed_occurrences", missed, "occurrences");
        List<String> names = new ArrayList<>(
                List.of("jobs.tick", "jobs.ttl", "jobs.due_to_started.runs", "jobs.missed_occurrences"));
        names.addAll(distribution(f, "jobs.due_to_started", samples.get("due")));
        for (String job : TIMED) {
            names.addAll(distribution(f, "jobs.due_to_started." + job, samples.get("due." + job)));
        }
        for (String key : List.of(
                "provable.kill_to_takeover",
                "unprovable.kill_to_takeover",
                "unprovable.renewal_to_takeover",
                "kill_wait")) {
            if (!samples.containsKey(key)) {
                continue;
            }
            names.addAll(distribution(f, "jobs." + key, samples.get(key)));
            f.note("jobs." + key + " samples (ms): "
                    + samples.get(key).stream()
                            .map(v -> String.format(Locale.ROOT, "%.0f", v))
                            .collect(Collectors.joining(" ")));
        }
        f.print(names.toArray(String[]::new));
        if (samples.containsKey("victim_lost_lease_before_pause")) {
            f.note("jobs: " + samples.get("victim_lost_lease_before_pause").size() + " times a victim lost its lease"
                    + " before its first batch (a stall past the TTL) and a taker finished its run; rows seeded again");
        }
        double ttl = s.ttl().toMillis();
        f.ratio(
                "jobs.due_to_started.max_vs_tick",
                f.median("jobs.due_to_started.max") / tick(s.interval()).toMillis());
        f.ratio("jobs.unprovable.kill_to_takeover.p50_vs_ttl", f.median("jobs.unprovable.kill_to_takeover.p50") / ttl);
        f.ratio("jobs.unprovable.kill_to_takeover.max_vs_ttl", f.median("jobs.unprovable.kill_to_takeover.max") / ttl);
        f.ratio(
                "jobs.unprovable.renewal_to_takeover.min_vs_ttl",
                f.median("jobs.unprovable.renewal_to_takeover.min") / ttl);
        f.ratio(
                "jobs.unprovable.renewal_to_takeover.max_vs_ttl",
                f.median("jobs.unprovable.renewal_to_takeover.max") / ttl);
    }

    /** Samples p50, p95, min and max of {@code values} as figures; returns their names. */
    private static List<String> distribution(Figures f, String name, List<Double> values) {
        if (values == null || values.isEmpty()) {
            return List.of();
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        f.sample(name + ".p50", Figures.median(values), "ms");
        f.sample(name + ".p95", v[(int) Math.min(v.length - 1, Math.ceil(0.95 * v.length) - 1)], "ms");
        f.sample(name + ".min", v[0], "ms");
        f.sample(name + ".max", v[v.length - 1], "ms");
        return List.of(name + ".p50", name + ".p95", name + ".min", name + ".max");
    }

    /** One round; adds to {@code samples}; returns the occurrences that had no run (coalesced). */
    private static long runRound(
            Settings s, int round, BenchDatabases dbs, Path dir, Random random, Map<String, List<Double>> samples)
            throws Exception {
        Files.createDirectories(dir);
        List<ServerProcess> takers = new ArrayList<>();
        try (JobTables db = new JobTables(ScaleBench.withoutParameters(dbs.newDatabase(s.postgres(), "jobs")))) {
            List<String> args = new ArrayList<>(List.of(
                    "--job-lease-ttl", s.ttl().toMillis() + "ms", "--job-interval", StandardJobs.PRUNE_AUDIT + "=off"));
            for (String job : TIMED) {
                args.addAll(List.of("--job-interval", job + "=" + s.interval().toMillis() + "ms"));
            }
            List<CompletableFuture<ServerProcess>> starting = new ArrayList<>();
            for (int i = 0; i < s.instances(); i++) { // started side by side: their start is not measured
                Path log = dir.resolve("server-" + i + ".log");
                starting.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return ServerProcess.start(db.url(), null, s.serverJvm(), log, args, List.of(), Map.of());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }));
            }
            RuntimeException failed = null;
            for (CompletableFuture<ServerProcess> f : starting) {
                try {
                    takers.add(f.join()); // every started one is closed below, also on a failure
                } catch (RuntimeException e) {
                    failed = failed == null ? e : failed;
                }
            }
            if (failed != null) {
                throw failed;
            }
            Set<String> takerIds = new HashSet<>();
            for (ServerProcess p : takers) {
                takerIds.add(p.instanceId());
            }
            long intervalMs = s.interval().toMillis();
            long firstSlot = Math.floorDiv(System.currentTimeMillis(), intervalMs) + 1; // due after every server is up
            db.awaitCompletedSlots(
                    TIMED,
                    firstSlot + s.occurrences() - 1,
                    Duration.ofMillis(intervalMs * (s.occurrences() + 2) * 3).plusSeconds(60));
            // Collected as the round goes on: a job keeps only its newest 100 runs (JobRunner.KEEP_RUNS).
            Map<String, TreeMap<Long, Long>> starts = new LinkedHashMap<>();
            collectStarts(db, firstSlot, intervalMs, starts);
            for (int k = 0; k < s.killsPerMode(); k++) {
                for (int m = 0; m < 2; m++) {
                    boolean provable = (k + round + m) % 2 == 0;
                    killOnce(
                            s,
                            db,
                            dir.resolve("victim-" + k + "-" + (provable ? "provable" : "unprovable")),
                            provable,
                            takerIds,
                            random,
                            samples);
                    collectStarts(db, firstSlot, intervalMs, starts);
                }
            }
            db.checkOneRunPerOccurrenceAndEpoch();
            long lastSlot = collectStarts(db, firstSlot, intervalMs, starts);
            return addDue(starts, firstSlot, lastSlot, intervalMs, samples);
        } finally {
            for (ServerProcess p : takers) {
                p.close();
            }
        }
    }

    /**
     * Adds the first scheduled run's start of every timed job's slots from {@code firstSlot} up to
     * two slots ago (surely over) to {@code starts}; returns that last slot.
     */
    private static long collectStarts(
            JobTables db, long firstSlot, long intervalMs, Map<String, TreeMap<Long, Long>> starts) throws Exception {
        long lastSlot = Math.floorDiv(System.currentTimeMillis(), intervalMs) - 2;
        for (String job : TIMED) {
            TreeMap<Long, Long> into = starts.computeIfAbsent(job, j -> new TreeMap<>());
            db.firstScheduledStarts(job, firstSlot, lastSlot).forEach(into::putIfAbsent);
        }
        return lastSlot;
    }

    /** Adds every timed run's due → started time of slots firstSlot..lastSlot; returns the slots without a run. */
    private static long addDue(
            Map<String, TreeMap<Long, Long>> starts,
            long firstSlot,
            long lastSlot,
            long intervalMs,
            Map<String, List<Double>> samples) {
        long missed = 0;
        for (String job : TIMED) {
            Map<Long, Long> started = starts.get(job).subMap(firstSlot, true, lastSlot, true);
            for (Map.Entry<Long, Long> e : started.entrySet()) {
                long dueMs = e.getKey() * intervalMs;
                long late = e.getValue() - dueMs;
                if (late < -STAMP_SLACK_MS) {
                    throw new IllegalStateException(
                            "job " + job + " slot " + e.getKey() + " started " + -late + " ms before it was due");
                }
                samples.computeIfAbsent("due", x -> new ArrayList<>()).add((double) late);
                samples.computeIfAbsent("due." + job, x -> new ArrayList<>()).add((double) late);
            }
            missed += (lastSlot - firstSlot + 1) - started.size();
        }
        return missed;
    }

    /** Starts a victim, lets it pause mid-run, kills it and measures the takeover. */
    private static void killOnce(
            Settings s,
            JobTables db,
            Path dir,
            boolean provable,
            Set<String> takerIds,
            Random random,
            Map<String, List<Double>> samples)
            throws Exception {
        Files.createDirectories(dir);
        db.seedOldAuditRows(
                AUDIT_ROWS, System.currentTimeMillis() - Duration.ofDays(8).toMillis());
        List<String> args = new ArrayList<>(List.of(
                "--job-lease-ttl",
                s.ttl().toMillis() + "ms",
                "--job-batch-size",
                "1",
                "--audit-retention",
                "7d",
                "--job-pause",
                StandardJobs.PRUNE_AUDIT,
                "--job-interval",
                StandardJobs.PRUNE_AUDIT + "=1s"));
        for (String job : TIMED) {
            args.addAll(List.of("--job-interval", job + "=off"));
        }
        String host = "jobbench-" + dir.getFileName();
        List<String> prefix = provable
                ? List.of()
                : List.of("unshare", "--uts", "--", "sh", "-c", "hostname \"$0\" && exec \"$@\"", host);
        ServerProcess victim = ServerProcess.start(
                db.url(),
                null,
                s.serverJvm(),
                dir.resolve("server.log"),
                args,
                prefix,
                provable ? Map.of() : Map.of("HOSTNAME", host));
        try {
            // On a loaded machine the victim can stall past its TTL before its first batch commits;
            // then a taker rightly resumes the run and prunes every row, and nothing pauses. The rows
            // are seeded again for the victim's next occurrence (bounded; the takeover is counted).
            Optional<JobTables.PausedRun> waited = db.awaitPausedRun(StandardJobs.PRUNE_AUDIT, Duration.ofSeconds(90));
            for (int again = 1; waited.isEmpty(); again++) {
                if (again > MAX_RESEEDS) {
                    throw new IllegalStateException(
                            "the victim's prune-audit run never paused: " + MAX_RESEEDS
                                    + " times a taker finished the job first (the victim lost its lease before its first batch)");
                }
                samples.computeIfAbsent("victim_lost_lease_before_pause", x -> new ArrayList<>())
                        .add(1.0);
                db.seedOldAuditRows(
                        AUDIT_ROWS,
                        System.currentTimeMillis() - Duration.ofDays(8).toMillis());
                waited = db.awaitPausedRun(StandardJobs.PRUNE_AUDIT, Duration.ofSeconds(90));
            }
            JobTables.PausedRun paused = waited.get();
            if (!paused.instanceId().equals(victim.instanceId())) {
                throw new IllegalStateException(
                        "prune-audit paused on " + paused.instanceId() + ", not on the victim " + victim.instanceId());
            }
            long waitMs = (long) (random.nextDouble() * s.ttl().toMillis() / 3);
            samples.computeIfAbsent("kill_wait", x -> new ArrayList<>()).add((double) waitMs);
            Thread.sleep(waitMs);
            String key = "job:" + StandardJobs.PRUNE_AUDIT;
            if (!paused.ownerId().equals(db.leaseOwner(key).orElse(null))) {
                throw new IllegalStateException("the live victim's lease of " + key + " was taken: "
                        + db.leaseOwner(key).orElse("(free)"));
            }
            long killedAtMs = System.currentTimeMillis();
            victim.kill();
            long renewedAtMs = 0;
            if (!provable) {
                JobTables.LeaseRow row = db.lease(key);
                if (!paused.ownerId().equals(row.owner())) {
                    throw new IllegalStateException("the victim's lease was taken over within milliseconds of the kill"
                            + " although its death is not provable: " + row.owner());
                }
                renewedAtMs = row.renewedAtMs();
            }
            JobTables.Takeover t = db.awaitTakeover(
                    StandardJobs.PRUNE_AUDIT,
                    paused.runId(),
                    s.ttl().multipliedBy(3).plusSeconds(60));
            if (!takerIds.contains(t.instanceId()) || t.epoch() <= paused.epoch() || t.processed() != AUDIT_ROWS) {
                throw new IllegalStateException("bad takeover of run " + paused.runId() + " (epoch " + paused.epoch()
                        + ", " + AUDIT_ROWS + " rows): " + t);
            }
            db.checkResumedCleanly(StandardJobs.PRUNE_AUDIT, paused.runId());
            String mode = provable ? "provable" : "unprovable";
            samples.computeIfAbsent(mode + ".kill_to_takeover", x -> new ArrayList<>())
                    .add((double) (t.startedAtMs() - killedAtMs));
            if (!provable) {
                long sinceRenewal = t.startedAtMs() - renewedAtMs;
                if (sinceRenewal < s.ttl().toMillis() - STAMP_SLACK_MS) {
                    throw new IllegalStateException("the lease was taken over " + sinceRenewal
                            + " ms after the victim's" + " last renewal, less than its TTL of "
                            + s.ttl().toMillis() + " ms");
                }
                samples.computeIfAbsent("unprovable.renewal_to_takeover", x -> new ArrayList<>())
                        .add((double) sinceRenewal);
            }
        } finally {
            victim.close();
        }
    }
}
