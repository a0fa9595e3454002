package org.leasesync.server.jobs;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.leasesync.lease.TaskRegistry;

/**
 * How a server runs its jobs ({@link StandardJobs}). Immutable; validated once, here.
 *
 * @param scheduled false ({@code --jobs off}) runs no job by schedule, nor resumes interrupted
 *     runs by itself; {@code POST /v1/admin/jobs/{name}/run} still runs one
 * @param intervals each job's interval, one entry per job name of {@link StandardJobs#NAMES} (a
 *     missing name gets its default); {@link #OFF} (zero) = not scheduled on this instance
 * @param leaseTtl the TTL of a job's lease ({@code --job-lease-ttl}); renewed every TTL/3 while the
 *     run goes on; a dead instance's job is taken over at most one TTL after another instance first
 *     looks (at once when its process is provably gone on the same machine)
 * @param auditRetention how old an audit row must be for {@code prune-audit} to delete it
 * @param tombstoneRetention how old a tombstone must be for {@code purge-tombstones} to delete it
 * @param batchSize rows per batch (one fenced transaction each), {@value #MIN_BATCH}..{@value #MAX_BATCH}
 * @param pauseAfterFirstBatch test only ({@code --job-pause NAME}, hidden): runs of these jobs stop
 *     after their first committed batch until the server closes, so tests can kill or freeze an
 *     instance mid-run
 */
public record JobSettings(
        boolean scheduled,
        Map<String, Duration> intervals,
        Duration leaseTtl,
        Duration auditRetention,
        Duration tombstoneRetention,
        int batchSize,
        Set<String> pauseAfterFirstBatch) {

    /** The interval that means "not scheduled". */
    public static final Duration OFF = Duration.ZERO;
    /** Shortest job interval. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    /** Longest job interval. */
    public static final Duration MAX_INTERVAL = Duration.ofDays(30);
    /** Default job lease TTL. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);
    /** Default audit retention: 7 days. */
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(7);
    /** Default tombstone retention: 30 days. */
    public static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(30);
    /** Default rows per batch. */
    public static final int DEFAULT_BATCH = 500;

    public static final int MIN_BATCH = 1;
    public static final int MAX_BATCH = 10_000;
    private static final Duration MAX_RETENTION = Duration.ofDays(3650);

    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException naming the bad value (an unknown job name, an interval,
     *     TTL, retention or batch size out of range)
     * @throws NullPointerException if a component is null
     */
    public JobSettings {
        Objects.requireNonNull(intervals, "intervals");
        Map<String, Duration> all = new LinkedHashMap<>(StandardJobs.DEFAULT_INTERVALS);
        for (Map.Entry<String, Duration> e : intervals.entrySet()) {
            all.put(knownName(e.getKey()), validInterval(e.getKey(), e.getValue()));
        }
        intervals = Map.copyOf(all);
        try {
            TaskRegistry.validateTtl(leaseTtl);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("job lease TTL: " + e.getMessage(), e);
        }
        validRetention("audit retention", auditRetention);
        validRetention("tombstone retention", tombstoneRetention);
        if (batchSize < MIN_BATCH || batchSize > MAX_BATCH) {
            throw new IllegalArgumentException(
                    "job batch size must be " + MIN_BATCH + ".." + MAX_BATCH + " but was " + batchSize);
        }
        Objects.requireNonNull(pauseAfterFirstBatch, "pauseAfterFirstBatch");
        pauseAfterFirstBatch.forEach(JobSettings::knownName);
        pauseAfterFirstBatch = Set.copyOf(pauseAfterFirstBatch);
    }

    /** Every job scheduled at its default interval, 15 s lease TTL, 7 d audit and 30 d tombstone retention. */
    public static JobSettings defaults() {
        return new JobSettings(
                true,
                Map.of(),
                DEFAULT_LEASE_TTL,
                DEFAULT_AUDIT_RETENTION,
                DEFAULT_TOMBSTONE_RETENTION,
                DEFAULT_BATCH,
                Set.of());
    }

    /**
     * Checks a job name.
     *
     * @return the same name
     * @throws IllegalArgumentException naming the name and the known ones
     */
    public static String knownName(String name) {
        if (!StandardJobs.NAMES.contains(name)) {
            throw new IllegalArgumentException(
                    "unknown job '" + name + "'; known jobs: " + String.join(", ", StandardJobs.NAMES));
        }
        return name;
    }

    private static Duration validInterval(String name, Duration d) {
        Objects.requireNonNull(d, "interval of " + name);
        if (d.isZero()) {
            return OFF;
        }
        if (d.compareTo(MIN_INTERVAL) < 0 || d.compareTo(MAX_INTERVAL) > 0) {
            throw new IllegalArgumentException(
                    "the interval of job " + name + " must be between 100ms and 30d (or off), got " + d);
        }
        return d;
    }

    private static void validRetention(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isZero() || d.isNegative() || d.compareTo(MAX_RETENTION) > 0) {
            throw new IllegalArgumentException(what + " must be positive and at most 3650d, got " + d);
        }
    }

    /** The job's interval when it runs by schedule on this instance, else empty (off, or {@code scheduled} false). */
    public Optional<Duration> interval(String name) {
        Duration d = intervals.get(knownName(name));
        return scheduled && !d.isZero() ? Optional.of(d) : Optional.empty();
    }

    /** A copy with jobs scheduled or not ({@code --jobs on|off}). */
    public JobSettings withScheduled(boolean on) {
        return new JobSettings(
                on, intervals, leaseTtl, auditRetention, tombstoneRetention, batchSize, pauseAfterFirstBatch);
    }

    /** A copy with one job's interval changed ({@link #OFF} = not scheduled). */
    public JobSettings withInterval(String name, Duration interval) {
        Map<String, Duration> m = new LinkedHashMap<>(intervals);
        m.put(knownName(name), interval);
        return new JobSettings(
                scheduled, m, leaseTtl, auditRetention, tombstoneRetention, batchSize, pauseAfterFirstBatch);
    }

    /** A copy with every job's interval set to {@code interval}. */
    public JobSettings withAllIntervals(Duration interval) {
        JobSettings s = this;
        for (String name : StandardJobs.NAMES) {
            s = s.withInterval(name, interval);
        }
        return s;
    }

    /** A copy with another lease TTL. */
    public JobSettings withLeaseTtl(Duration ttl) {
        return new JobSettings(
                scheduled, intervals, ttl, auditRetention, tombstoneRetention, batchSize, pauseAfterFirstBatch);
    }

    /** A copy with another audit retention. */
    public JobSettings withAuditRetention(Duration d) {
        return new JobSettings(scheduled, intervals, leaseTtl, d, tombstoneRetention, batchSize, pauseAfterFirstBatch);
    }

    /** A copy with another tombstone retention. */
    public JobSettings withTombstoneRetention(Duration d) {
        return new JobSettings(scheduled, intervals, leaseTtl, auditRetention, d, batchSize, pauseAfterFirstBatch);
    }

    /** A copy with another batch size. */
    public JobSettings withBatchSize(int n) {
        return new JobSettings(
                scheduled, intervals, leaseTtl, auditRetention, tombstoneRetention, n, pauseAfterFirstBatch);
    }

    /** A copy whose runs of {@code names} pause after their first batch until the server closes (tests). */
    public JobSettings withPauseAfterFirstBatch(Set<String> names) {
        return new JobSettings(
                scheduled, intervals, leaseTtl, auditRetention, tombstoneRetention, batchSize, new TreeSet<>(names));
    }
}
