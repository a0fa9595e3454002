package org.leasesync.server.jobs;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sync server's jobs, their names and default intervals (docs/reference-server.md, "Jobs").
 * Stateless.
 */
public final class StandardJobs {

    public static final String EXPIRE_IDEMPOTENCY_KEYS = "expire-idempotency-keys";
    public static final String PRUNE_AUDIT = "prune-audit";
    public static final String PURGE_TOMBSTONES = "purge-tombstones";
    public static final String RELEASE_STALE_CLAIMS = "release-stale-claims";

    /** Every job name, in the order they are run and shown. */
    public static final List<String> NAMES =
            List.of(EXPIRE_IDEMPOTENCY_KEYS, PRUNE_AUDIT, PURGE_TOMBSTONES, RELEASE_STALE_CLAIMS);

    /** Default intervals: 10 minutes, 1 hour, 1 hour, 1 minute. */
    public static final Map<String, Duration> DEFAULT_INTERVALS;

    static {
        Map<String, Duration> m = new LinkedHashMap<>();
        m.put(EXPIRE_IDEMPOTENCY_KEYS, Duration.ofMinutes(10));
        m.put(PRUNE_AUDIT, Duration.ofHours(1));
        m.put(PURGE_TOMBSTONES, Duration.ofHours(1));
        m.put(RELEASE_STALE_CLAIMS, Duration.ofMinutes(1));
        DEFAULT_INTERVALS = java.util.Collections.unmodifiableMap(m);
    }

    private StandardJobs() {}

    /**
     * The four jobs, in {@link #NAMES} order.
     *
     * @param keyRetention the idempotency key retention ({@code --key-retention})
     * @param settings the audit and tombstone retentions
     * @param instanceId this instance's id
     * @param liveness tells whether another instance is alive (for stale claims)
     */
    public static List<Job<?>> create(
            Duration keyRetention, JobSettings settings, String instanceId, InstanceLiveness liveness) {
        return List.of(
                new ExpireIdempotencyKeysJob(keyRetention),
                new PruneAuditJob(settings.auditRetention()),
                new PurgeTombstonesJob(settings.tombstoneRetention()),
                new ReleaseStaleClaimsJob(instanceId, liveness));
    }
}
