package org.leasesync.server.faults;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * One fault to switch on at server start, e.g. {@code fail-push=2} or {@code latency=250ms}.
 *
 * <p>Immutable and thread-safe. Count kinds ({@link Kind#FAIL_PUSH},
 * {@link Kind#DROP_AFTER_APPLY}, {@link Kind#THROTTLE}) carry {@link #count()} and a zero
 * {@link #duration()}; duration kinds ({@link Kind#LATENCY}, {@link Kind#DELAY_AFTER_APPLY})
 * carry {@link #duration()} and a zero count. See {@code docs/protocol.md} §8 for the meaning
 * of each kind.
 *
 * @param kind what misbehaves
 * @param count how many requests it affects (count kinds), {@code >= 0}
 * @param duration how long (duration kinds), not negative
 */
public record FaultSpec(Kind kind, int count, Duration duration) {

    /** The accepted spec forms, for error messages. */
    public static final String ACCEPTED_FORMS = "latency=DURATION, fail-push=N, drop-after-apply=N, "
            + "delay-after-apply=DURATION, throttle=N (DURATION: " + Durations.ACCEPTED_FORMS + ")";

    /** The kinds of fault, with their spec names. */
    public enum Kind {
        /** Every user request is delayed by the duration before it is handled. */
        LATENCY("latency", false),
        /** The next N pushes get 500 before anything is applied. */
        FAIL_PUSH("fail-push", true),
        /** The next N pushes are applied and committed, then the connection is dropped. */
        DROP_AFTER_APPLY("drop-after-apply", true),
        /** Every executed push is answered only after the duration. */
        DELAY_AFTER_APPLY("delay-after-apply", false),
        /** The next N user requests get 429 with Retry-After. */
        THROTTLE("throttle", true);

        private final String specName;
        private final boolean counted;

        Kind(String specName, boolean counted) {
            this.specName = specName;
            this.counted = counted;
        }

        /** The name used in specs, e.g. {@code fail-push}. */
        public String specName() {
            return specName;
        }

        /** True for kinds that take a count, false for kinds that take a duration. */
        public boolean counted() {
            return counted;
        }
    }

    /**
     * Validates the components.
     *
     * @throws IllegalArgumentException if a component does not fit the kind
     * @throws NullPointerException if kind or duration is null
     */
    public FaultSpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(duration, "duration");
        if (count < 0) {
            throw new IllegalArgumentException("fault count must be >= 0 but was " + count);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("fault duration must not be negative but was " + duration);
        }
        if (kind.counted() && !duration.isZero()) {
            throw new IllegalArgumentException(kind.specName() + " takes a count, not a duration " + duration);
        }
        if (!kind.counted() && count != 0) {
            throw new IllegalArgumentException(kind.specName() + " takes a duration, not a count " + count);
        }
    }

    /**
     * Parses a spec such as {@code latency=250ms}, {@code fail-push=2} or
     * {@code delay-after-apply=PT2S}.
     *
     * @throws IllegalArgumentException if the spec is malformed; the message names the spec and
     *     the accepted forms
     */
    public static FaultSpec parse(String spec) {
        if (spec == null || spec.indexOf('=') < 0) {
            throw bad(spec, "expected NAME=VALUE");
        }
        int eq = spec.indexOf('=');
        String name = spec.substring(0, eq).trim().toLowerCase(Locale.ROOT);
        String value = spec.substring(eq + 1).trim();
        for (Kind kind : Kind.values()) {
            if (kind.specName().equals(name)) {
                return kind.counted() ? counted(spec, kind, value) : timed(spec, kind, value);
            }
        }
        throw bad(spec, "unknown fault '" + name + "'");
    }

    private static FaultSpec counted(String spec, Kind kind, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n < 0) {
                throw bad(spec, "count must be >= 0");
            }
            return new FaultSpec(kind, n, Duration.ZERO);
        } catch (NumberFormatException e) {
            throw bad(spec, "'" + value + "' is not a count");
        }
    }

    private static FaultSpec timed(String spec, Kind kind, String value) {
        try {
            return new FaultSpec(kind, 0, Durations.parse(value));
        } catch (IllegalArgumentException e) {
            throw bad(spec, "'" + value + "' is not a duration");
        }
    }

    private static IllegalArgumentException bad(String spec, String why) {
        return new IllegalArgumentException("bad fault spec '" + spec + "': " + why + "; accepted: " + ACCEPTED_FORMS);
    }

    /** The spec in its parseable form, e.g. {@code fail-push=2} or {@code latency=PT0.25S}. */
    @Override
    public String toString() {
        return kind.specName() + "=" + (kind.counted() ? Integer.toString(count) : duration.toString());
    }
}
