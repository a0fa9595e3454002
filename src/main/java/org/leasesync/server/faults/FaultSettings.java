package org.leasesync.server.faults;

/**
 * A snapshot of the fault switches, in the JSON shape of {@code GET/PUT /v1/admin/faults}.
 *
 * <p>Immutable. All values are {@code >= 0}; zero means "off".
 *
 * @param latencyMs delay before every user request, milliseconds
 * @param failPush remaining pushes that will get 500 before anything is applied
 * @param dropAfterApply remaining pushes that will be applied, then dropped without a response
 * @param delayAfterApplyMs delay between committing an executed push and answering it, milliseconds
 * @param throttle remaining user requests that will get 429
 * @param throttleRetryAfterSeconds the wait a throttled request is told in {@code Retry-After}, seconds (1 or more)
 * @param throttleRetryAfterDate whether {@code Retry-After} is sent as an HTTP-date (the server's wall clock,
 *     rounded up to the next whole second, plus the wait) instead of delta-seconds; RFC 9110 §10.2.3 allows both
 */
public record FaultSettings(
        long latencyMs,
        int failPush,
        int dropAfterApply,
        long delayAfterApplyMs,
        int throttle,
        long throttleRetryAfterSeconds,
        boolean throttleRetryAfterDate) {

    /** The wait of a throttled request unless set: one second, as delta-seconds. */
    public static final long DEFAULT_RETRY_AFTER_SECONDS = 1;

    /** All faults off. */
    public static final FaultSettings NONE = new FaultSettings(0, 0, 0, 0, 0);

    /**
     * Validates that every value is non-negative and the throttle's wait at least one second.
     *
     * @throws IllegalArgumentException naming the value out of range
     */
    public FaultSettings {
        requireNonNegative("latencyMs", latencyMs);
        requireNonNegative("failPush", failPush);
        requireNonNegative("dropAfterApply", dropAfterApply);
        requireNonNegative("delayAfterApplyMs", delayAfterApplyMs);
        requireNonNegative("throttle", throttle);
        if (throttleRetryAfterSeconds < 1 || throttleRetryAfterSeconds > 3600) {
            throw new IllegalArgumentException(
                    "throttleRetryAfterSeconds must be 1..3600 but was " + throttleRetryAfterSeconds);
        }
    }

    /** Settings whose throttled requests are told to wait one second, as delta-seconds. */
    public FaultSettings(long latencyMs, int failPush, int dropAfterApply, long delayAfterApplyMs, int throttle) {
        this(latencyMs, failPush, dropAfterApply, delayAfterApplyMs, throttle, DEFAULT_RETRY_AFTER_SECONDS, false);
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0 but was " + value);
        }
    }
}
