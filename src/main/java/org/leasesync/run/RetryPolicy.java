package org.leasesync.run;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter, capped: attempt n (1-based) waits a random time in
 * {@code [base * 2^(n-1) / 2, base * 2^(n-1)]}, never more than {@code cap}; a server's
 * {@code Retry-After} raises the wait to at least that.
 *
 * @param base the first delay, positive
 * @param cap the longest delay, at least {@code base}
 * @param maxAttempts retries after a failure before giving up until the next regular trigger (&gt;= 0)
 */
public record RetryPolicy(Duration base, Duration cap, int maxAttempts) {

    /** 5 s, doubling, capped at 5 min, 6 attempts. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(5), 6);

    /** Never retries automatically. */
    public static final RetryPolicy NONE = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 0);

    /** @throws IllegalArgumentException naming the bad value */
    public RetryPolicy {
        if (base == null || base.isZero() || base.isNegative()) {
            throw new IllegalArgumentException("retry base delay must be positive, got " + base);
        }
        if (cap == null || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("retry cap " + cap + " must be at least the base delay " + base);
        }
        if (maxAttempts < 0) {
            throw new IllegalArgumentException("retry maxAttempts must be >= 0, got " + maxAttempts);
        }
    }

    /**
     * The delay before retry number {@code attempt}.
     *
     * @param attempt 1-based
     * @param retryAfterMillis the server's requested minimum, or a negative number for none
     * @param random a source of uniform numbers in [0, 1)
     */
    public Duration delay(int attempt, long retryAfterMillis, DoubleSupplier random) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, got " + attempt);
        }
        long baseMs = base.toMillis();
        long capMs = cap.toMillis();
        long exp = attempt > 40 ? capMs : Math.min(capMs, baseMs << Math.min(attempt - 1, 40));
        long jittered = exp / 2 + (long) (random.getAsDouble() * (exp - exp / 2));
        return Duration.ofMillis(Math.max(jittered, Math.max(0, retryAfterMillis)));
    }
}
