package org.leasesync.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.leasesync.server.jobs.JobRunner;
import org.leasesync.server.jobs.StandardJobs;

/**
 * How the server's jobs run during a cluster run, so that they actually run — and are disturbed —
 * while clients sync: every instance gets short job intervals and a short job lease TTL, a short key
 * retention (so {@code expire-idempotency-keys} deletes rows) and tombstone retention (so
 * {@code purge-tombstones} purges while clients sync, and their stale cursors are answered
 * {@code invalid_cursor}), tiny batches (so a run has several), and one instance each pauses one job
 * after its first batch ({@code serve --job-pause}) until it is killed or stopped, so that kills land
 * mid-run and other instances take the run over. The audit is kept longer than any run (the checker
 * reads it).
 *
 * <p>The intervals grow with the number of rounds (×{@code rounds/200}, never below the base), so
 * that a job has a few tens of occurrences in any run and never more runs than the server keeps
 * ({@value JobRunner#KEEP_RUNS} per job; {@link JobRunCheck} fails a run whose history was cut).
 *
 * @param intervals each job's interval, in {@link StandardJobs#NAMES} order
 * @param leaseTtl the job lease TTL ({@code --job-lease-ttl})
 * @param keyRetention {@code --key-retention}
 * @param tombstoneRetention {@code --tombstone-retention}
 * @param auditRetention {@code --audit-retention}
 * @param batchSize rows per job batch ({@code --job-batch-size})
 * @param pauses instance number (from 1) → the job its runs pause ({@code --job-pause})
 */
record ClusterJobs(
        Map<String, Duration> intervals,
        Duration leaseTtl,
        Duration keyRetention,
        Duration tombstoneRetention,
        Duration auditRetention,
        int batchSize,
        Map<Integer, String> pauses) {

    /** Intervals at 200 rounds and below. */
    static final Map<String, Duration> BASE_INTERVALS = Map.of(
            StandardJobs.EXPIRE_IDEMPOTENCY_KEYS, Duration.ofSeconds(4),
            StandardJobs.PRUNE_AUDIT, Duration.ofSeconds(6),
            StandardJobs.PURGE_TOMBSTONES, Duration.ofSeconds(5),
            StandardJobs.RELEASE_STALE_CLAIMS, Duration.ofSeconds(4));

    /** The audit must outlive the run: the harness's own bound is 15 min + 20 s per round (at most 100 000). */
    static final Duration AUDIT_RETENTION = Duration.ofDays(3650);

    ClusterJobs {
        intervals = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(intervals));
        pauses = Map.copyOf(pauses);
        for (String job : StandardJobs.NAMES) {
            if (!intervals.containsKey(job)) {
                throw new IllegalArgumentException("no interval for server job " + job);
            }
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("job batch size must be at least 1, got " + batchSize);
        }
    }

    /** The settings for a run of {@code rounds} rounds (at least 1). */
    static ClusterJobs forRounds(int rounds) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
        }
        double scale = Math.max(1.0, rounds / 200.0);
        Map<String, Duration> intervals = new LinkedHashMap<>();
        for (String job : StandardJobs.NAMES) {
            intervals.put(
                    job, Duration.ofMillis(Math.round(BASE_INTERVALS.get(job).toMillis() * scale)));
        }
        return new ClusterJobs(
                intervals,
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                AUDIT_RETENTION,
                2,
                Map.of(1, StandardJobs.PURGE_TOMBSTONES, 2, StandardJobs.EXPIRE_IDEMPOTENCY_KEYS));
    }

    /** The {@code serve} options of instance {@code k} (from 1). */
    List<String> serveArgs(int k) {
        List<String> args = new ArrayList<>();
        intervals.forEach((job, every) -> args.addAll(List.of("--job-interval", job + "=" + every.toMillis() + "ms")));
        args.addAll(List.of(
                "--job-lease-ttl",
                leaseTtl.toMillis() + "ms",
                "--key-retention",
                keyRetention.toMillis() + "ms",
                "--tombstone-retention",
                tombstoneRetention.toMillis() + "ms",
                "--audit-retention",
                auditRetention.toDays() + "d",
                "--job-batch-size",
                String.valueOf(batchSize)));
        if (pauses.containsKey(k)) {
            args.addAll(List.of("--job-pause", pauses.get(k)));
        }
        return args;
    }

    /** One line for the progress output. */
    String describe() {
        StringBuilder b = new StringBuilder("jobs every");
        intervals.forEach((job, every) ->
                b.append(' ').append(job).append('=').append(every.toMillis()).append("ms"));
        b.append(", lease TTL ")
                .append(leaseTtl.toMillis())
                .append(" ms, key and tombstone retention ")
                .append(keyRetention.toMillis())
                .append('/')
                .append(tombstoneRetention.toMillis())
                .append(" ms, batches of ")
                .append(batchSize)
                .append(", paused after the first batch:");
        new java.util.TreeMap<>(pauses)
                .forEach(
                        (k, job) -> b.append(" instance ").append(k).append(' ').append(job));
        return b.toString();
    }
}
