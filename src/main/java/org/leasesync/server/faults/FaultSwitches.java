package org.leasesync.server.faults;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.leasesync.server.ReferenceServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live fault switches of a running {@link ReferenceServer}.
 *
 * <p>Thread-safe: every switch is an atomic value that tests (or {@code PUT /v1/admin/faults})
 * may change while requests are being served; a change affects requests that reach the relevant
 * point after it. Counted faults go down by one each time they fire and never below zero. No
 * method blocks.
 */
public final class FaultSwitches {

    private static final Logger log = LoggerFactory.getLogger(FaultSwitches.class);

    private final AtomicLong latencyMs = new AtomicLong();
    private final AtomicInteger failPush = new AtomicInteger();
    private final AtomicInteger dropAfterApply = new AtomicInteger();
    private final AtomicLong delayAfterApplyMs = new AtomicLong();
    private final AtomicInteger throttle = new AtomicInteger();
    private volatile long throttleRetryAfterSeconds = FaultSettings.DEFAULT_RETRY_AFTER_SECONDS;
    private volatile boolean throttleRetryAfterDate;

    /** Creates switches with every fault off. */
    public FaultSwitches() {}

    /** Switches on the fault a spec describes (replacing that kind's current value). */
    public void apply(FaultSpec spec) {
        switch (spec.kind()) {
            case LATENCY -> latencyMs.set(spec.duration().toMillis());
            case FAIL_PUSH -> failPush.set(spec.count());
            case DROP_AFTER_APPLY -> dropAfterApply.set(spec.count());
            case DELAY_AFTER_APPLY -> delayAfterApplyMs.set(spec.duration().toMillis());
            case THROTTLE -> throttle.set(spec.count());
        }
        log.info("fault switched on: {}", spec);
    }

    /** Replaces every switch with the given settings. */
    public void set(FaultSettings s) {
        latencyMs.set(s.latencyMs());
        failPush.set(s.failPush());
        dropAfterApply.set(s.dropAfterApply());
        delayAfterApplyMs.set(s.delayAfterApplyMs());
        throttle.set(s.throttle());
        throttleRetryAfterSeconds = s.throttleRetryAfterSeconds();
        throttleRetryAfterDate = s.throttleRetryAfterDate();
        log.info("faults set to {}", s);
    }

    /** Switches every fault off. */
    public void clear() {
        set(FaultSettings.NONE);
    }

    /** A consistent-enough snapshot (each value is read atomically, not all together). */
    public FaultSettings snapshot() {
        return new FaultSettings(
                latencyMs.get(),
                failPush.get(),
                dropAfterApply.get(),
                delayAfterApplyMs.get(),
                throttle.get(),
                throttleRetryAfterSeconds,
                throttleRetryAfterDate);
    }

    /** The wait a throttled request is told, seconds (1 or more). */
    public long throttleRetryAfterSeconds() {
        return throttleRetryAfterSeconds;
    }

    /** Whether a throttled request's {@code Retry-After} is an HTTP-date rather than delta-seconds. */
    public boolean throttleRetryAfterDate() {
        return throttleRetryAfterDate;
    }

    /** Delay applied before every user request; zero when off. */
    public Duration latency() {
        return Duration.ofMillis(latencyMs.get());
    }

    /** Delay between committing an executed push and answering it; zero when off. */
    public Duration delayAfterApply() {
        return Duration.ofMillis(delayAfterApplyMs.get());
    }

    /** Sets the per-request latency (millisecond precision). */
    public void setLatency(Duration latency) {
        latencyMs.set(nonNegativeMillis("latency", latency));
    }

    /** Sets the delay after apply (millisecond precision). */
    public void setDelayAfterApply(Duration delay) {
        delayAfterApplyMs.set(nonNegativeMillis("delayAfterApply", delay));
    }

    /** Makes the next {@code n} pushes fail with 500 before anything is applied. */
    public void setFailPush(int n) {
        failPush.set(nonNegative("failPush", n));
    }

    /** Makes the next {@code n} pushes be applied and then dropped without a response. */
    public void setDropAfterApply(int n) {
        dropAfterApply.set(nonNegative("dropAfterApply", n));
    }

    /** Makes the next {@code n} user requests get 429. */
    public void setThrottle(int n) {
        throttle.set(nonNegative("throttle", n));
    }

    /** Consumes one fail-push; true if this push must fail. */
    public boolean takeFailPush() {
        return take(failPush, "fail-push");
    }

    /** Consumes one drop-after-apply; true if this push's connection must be dropped. */
    public boolean takeDropAfterApply() {
        return take(dropAfterApply, "drop-after-apply");
    }

    /** Consumes one throttle; true if this request must get 429. */
    public boolean takeThrottle() {
        return take(throttle, "throttle");
    }

    private static boolean take(AtomicInteger counter, String name) {
        int left = counter.getAndUpdate(v -> v > 0 ? v - 1 : 0);
        if (left > 0) {
            log.info("fault {} fires ({} left)", name, left - 1);
            return true;
        }
        return false;
    }

    private static int nonNegative(String name, int n) {
        if (n < 0) {
            throw new IllegalArgumentException(name + " must be >= 0 but was " + n);
        }
        return n;
    }

    private static long nonNegativeMillis(String name, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be a non-negative duration but was " + d);
        }
        return d.toMillis();
    }
}
