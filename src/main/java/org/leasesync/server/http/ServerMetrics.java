package org.leasesync.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.leasesync.server.jobs.JobResult;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.ProtocolHeaders;
import org.leasesync.server.protocol.PushOutcome;

/**
 * This server instance's metrics, in a Micrometer {@link PrometheusMeterRegistry} of its own,
 * exposed by {@code GET /metrics} in the Prometheus text format ({@link #scrape()}). Names, types
 * and tags are listed in docs/reference-server.md, "Metrics". Every tag takes values from a small,
 * fixed set (endpoints, statuses, outcomes, job names chosen in code), never from request data, so
 * the number of series stays bounded whatever users and keys the requests carry. There is no
 * {@code instance} tag: the scraper adds its target's; {@code leasesync.server.instance} (value 1)
 * maps it to the instance id.
 *
 * <p>Also the hook for server jobs: {@link #jobRun} records a run of a job in
 * the timer {@code leasesync.server.jobs} (tags {@code job}, {@code result}).
 *
 * <p>Thread-safe. Nothing here blocks or touches the database; {@link #scrape()} reads in-memory
 * state only (the pool's figures come from HikariCP's own counters), so it answers also while the
 * database is down.
 */
public final class ServerMetrics implements AutoCloseable {

    /** The content type of {@link #scrape()}: the Prometheus text exposition format 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Histogram buckets of the request timer, 1 ms to 10 s. */
    private static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10)
    };
    /** What a job name must look like: it becomes a tag value, so it is a code constant, not data. */
    static final Pattern JOB_NAME = Pattern.compile("[a-z][a-z0-9_-]{0,62}");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc;
    private final Map<String, Timer> requestTimers = new ConcurrentHashMap<>();
    private final Counter pushes;
    private final Counter applied;
    private final Counter duplicates;
    private final Counter conflicts;
    private final Counter fencingPush;
    private final Counter fencingPull;
    private final Counter replayed;
    private final Counter keyInUse;
    private final Counter keyReused;
    private final Counter unavailableDatabase;
    private final Counter commitOutcomeUnknown;

    /**
     * A registry with this instance's meters (all counters at zero), and the JVM's memory, thread
     * and (where the runtime has {@code jdk.management}) GC meters.
     *
     * @param instanceId this instance's id, for {@code leasesync.server.instance}
     * @param database {@code h2} or {@code postgresql}
     */
    public ServerMetrics(String instanceId, String database) {
        Gauge.builder("leasesync.server.instance", () -> 1)
                .description("1; its tags name this server instance and its database")
                .tag("instance_id", instanceId)
                .tag("database", database)
                .register(registry);
        pushes = counter("leasesync.server.pushes", "push transactions this instance committed", null, null);
        String changes = "leasesync.server.changes";
        String changesHelp = "changes in pushes this instance committed, by result";
        applied = counter(changes, changesHelp, "result", "applied");
        duplicates = counter(changes, changesHelp, "result", "duplicate");
        conflicts = counter(changes, changesHelp, "result", "conflict");
        String fencing = "leasesync.server.fencing.refusals";
        String fencingHelp = "requests refused with 409 stale_fencing_token, by operation";
        fencingPush = counter(fencing, fencingHelp, "op", "push");
        fencingPull = counter(fencing, fencingHelp, "op", "pull");
        String keys = "leasesync.server.idempotency";
        String keysHelp = "push answers decided by the Idempotency-Key: replayed, 409 in_use, 422 reused";
        replayed = counter(keys, keysHelp, "outcome", "replayed");
        keyInUse = counter(keys, keysHelp, "outcome", "in_use");
        keyReused = counter(keys, keysHelp, "outcome", "reused");
        String unavailable = "leasesync.server.unavailable";
        String unavailableHelp = "503 answers because the database was lost, by reason";
        unavailableDatabase = counter(unavailable, unavailableHelp, "reason", "database");
        commitOutcomeUnknown = counter(unavailable, unavailableHelp, "reason", "commit_outcome_unknown");
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        gc = gcNotificationsAvailable() ? new JvmGcMetrics() : null;
        if (gc != null) {
            gc.bindTo(registry);
        }
    }

    private Counter counter(String name, String description, String tag, String value) {
        Counter.Builder b = Counter.builder(name).description(description);
        if (tag != null) {
            b.tag(tag, value);
        }
        return b.register(registry);
    }

    /** Without {@code jdk.management} (a trimmed runtime image) Micrometer would only log a warning. */
    private static boolean gcNotificationsAvailable() {
        try {
            Class.forName(
                    "com.sun.management.GarbageCollectionNotificationInfo",
                    false,
                    ServerMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The registry, for binding the connection pool's own meters (HikariCP). */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Records a request whose answer is final, just before it is sent (so a client holding its
     * answer finds it counted): the request timer by endpoint and status ({@code dropped} for a
     * connection closed on purpose), and the counters its answer decides — fencing refusals,
     * replays, 409 in use, 422 reused. A successful {@code /metrics} scrape is not recorded, so
     * scraping does not change what it reports.
     *
     * @param error the error the answer carries, or null
     * @param elapsedNanos from the request's arrival to its answer being ready to send
     */
    void requestDone(RequestEndpoint endpoint, Reply reply, ApiError error, long elapsedNanos) {
        String status = reply.drop() ? "dropped" : Integer.toString(reply.status());
        if (endpoint == RequestEndpoint.METRICS && reply.status() == 200) {
            return;
        }
        requestTimers
                .computeIfAbsent(
                        endpoint.tag() + " " + status,
                        k -> Timer.builder("leasesync.server.requests")
                                .description("requests answered by this instance, by endpoint and status")
                                .tag("endpoint", endpoint.tag())
                                .tag("status", status)
                                .serviceLevelObjectives(LATENCY_BUCKETS)
                                .register(registry))
                .record(elapsedNanos, TimeUnit.NANOSECONDS);
        if (error != null) {
            switch (error.code()) {
                case "stale_fencing_token" ->
                    (endpoint == RequestEndpoint.PULL ? fencingPull : fencingPush).increment();
                case "idempotency_key_in_use" -> keyInUse.increment();
                case "idempotency_key_reused" -> keyReused.increment();
                default -> {}
            }
        }
        if ("true".equals(reply.headers().get(ProtocolHeaders.REPLAYED))) {
            replayed.increment();
        }
    }

    /** A push transaction committed, with what it did to each change. */
    void pushCommitted(PushOutcome outcome) {
        pushes.increment();
        applied.increment(outcome.applied().size());
        duplicates.increment(outcome.duplicates().size());
        conflicts.increment(outcome.conflicts().size());
    }

    /** A request was answered 503 because the database could not be reached. */
    void databaseUnavailable() {
        unavailableDatabase.increment();
    }

    /** A push was answered 503 because its commit's outcome is unknown (the connection broke). */
    void commitOutcomeUnknown() {
        commitOutcomeUnknown.increment();
    }

    /**
     * Records one run of server job {@code job} that took {@code elapsed}, in the timer
     * {@code leasesync.server.jobs} (tags {@code job}, {@code result}).
     *
     * @param job the job's name, a code constant (e.g. {@code prune-audit}); it becomes the tag {@code job}
     * @param result how the run ended; its {@link JobResult#wire()} form becomes the tag {@code result}
     * @throws IllegalArgumentException if {@code job} does not match {@code [a-z][a-z0-9_-]{0,62}}
     *     or {@code elapsed} is negative
     * @throws NullPointerException if an argument is null
     */
    public void jobRun(String job, JobResult result, Duration elapsed) {
        requireJobName(job);
        java.util.Objects.requireNonNull(result, "result");
        if (elapsed.isNegative()) {
            throw new IllegalArgumentException("elapsed must not be negative but was " + elapsed);
        }
        Timer.builder("leasesync.server.jobs")
                .description("runs of server jobs on this instance, by job and result")
                .tag("job", job)
                .tag("result", result.wire())
                .register(registry)
                .record(elapsed);
    }

    private static void requireJobName(String job) {
        if (job == null || !JOB_NAME.matcher(job).matches()) {
            throw new IllegalArgumentException("job name must match " + JOB_NAME + " but was '" + job + "'");
        }
    }

    /** The exposition of every meter, in {@link #CONTENT_TYPE}, as Micrometer's Prometheus registry writes it. */
    String scrape() {
        return registry.scrape();
    }

    /** Stops the GC listener and closes the registry. Idempotent. */
    @Override
    public void close() {
        if (gc != null) {
            gc.close();
        }
        registry.close();
    }
}
