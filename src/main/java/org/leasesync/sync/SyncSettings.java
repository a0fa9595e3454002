package org.leasesync.sync;

import java.time.Duration;

/**
 * Tuning of a sync run. Immutable; validated in the constructor.
 *
 * @param pullPageSize records per pull request, 1..1000
 * @param pushBatchSize outbox entries per push, 1..1000 (the protocol's maximum)
 * @param confirmAttempts how many times to query an ambiguous push (and resend it when the server
 *     does not know the key) before giving up with "needs attention", 1..50
 * @param confirmBackoff the first wait between those attempts; doubles each time
 * @param keyRetention how long the server keeps idempotency keys (protocol: 24 h); a batch sent
 *     longer ago whose key is unknown cannot be confirmed and needs attention
 */
public record SyncSettings(
        int pullPageSize, int pushBatchSize, int confirmAttempts, Duration confirmBackoff, Duration keyRetention) {

    /**
     * 1,000 per page and 1,000 per push (the protocol's maximums; a push has fewer when their
     * payloads pass about 1 MiB), 6 confirm attempts from 200 ms, 24 h retention.
     */
    public static final SyncSettings DEFAULT =
            new SyncSettings(1000, 1000, 6, Duration.ofMillis(200), Duration.ofHours(24));

    /** @throws IllegalArgumentException naming the bad value */
    public SyncSettings {
        if (pullPageSize < 1 || pullPageSize > 1000) {
            throw new IllegalArgumentException("pull page size must be 1..1000, got " + pullPageSize);
        }
        if (pushBatchSize < 1 || pushBatchSize > 1000) {
            throw new IllegalArgumentException("push batch size must be 1..1000, got " + pushBatchSize);
        }
        if (confirmAttempts < 1 || confirmAttempts > 50) {
            throw new IllegalArgumentException("confirm attempts must be 1..50, got " + confirmAttempts);
        }
        if (confirmBackoff == null || confirmBackoff.isNegative()) {
            throw new IllegalArgumentException("confirm backoff must be >= 0, got " + confirmBackoff);
        }
        if (keyRetention == null || keyRetention.isNegative() || keyRetention.isZero()) {
            throw new IllegalArgumentException("key retention must be positive, got " + keyRetention);
        }
    }
}
