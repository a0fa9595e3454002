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
 */
public record FaultSettings(long latencyMs, int failPush, int dropAfterApply, long delayAfterApplyMs,
                            int throttle) {

    /** All faults off. */
    public static final FaultSettings NONE = new FaultSettings(0, 0, 0, 0, 0);

    /**
     * Validates that every value is non-negative.
     *
     * @throws IllegalArgumentException naming the negative value
     */
    public FaultSettings {
        requireNonNegative("latencyMs", latencyMs);
        requireNonNegative("failPush", failPush);
        requireNonNegative("dropAfterApply", dropAfterApply);
        requireNonNegative("delayAfterApplyMs", delayAfterApplyMs);
        requireNonNegative("throttle", throttle);
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0 but was " + value);
        }
    }
}
