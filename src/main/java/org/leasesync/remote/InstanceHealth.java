package org.leasesync.remote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Which server URLs to avoid for a while: after a failure of an {@linkplain FailureClass#unhealthy()
 * unhealthy} class a URL is avoided for a backoff that starts at {@link #FIRST} and doubles with
 * every further such failure up to {@link #LONGEST}; any answer from it ends the backoff. An avoided
 * URL is tried last, not never: when every URL is avoided, each is still tried (soonest to recover
 * first), so a cluster that comes back is used at once.
 *
 * <p>Timed on a monotonic clock (nanoseconds; only differences count), so a wall clock that jumps
 * neither ends a backoff early nor makes it last for ever. Thread-safe; never blocks.
 */
final class InstanceHealth {

    /** The first backoff of a URL. */
    static final Duration FIRST = Duration.ofSeconds(10);
    /** The longest backoff of a URL. */
    static final Duration LONGEST = Duration.ofMinutes(2);

    private final LongSupplier nanos;
    private final long[] avoidUntil;
    private final int[] strikes;

    /** @param nanos monotonic nanoseconds ({@link System#nanoTime} outside tests) */
    InstanceHealth(int size, LongSupplier nanos) {
        this.nanos = nanos;
        this.avoidUntil = new long[size];
        this.strikes = new int[size];
    }

    /** The URL at {@code index} failed with {@code failure}: avoided for a while if the class says so. */
    synchronized void failed(int index, FailureClass failure) {
        if (!failure.unhealthy()) {
            return;
        }
        int n = Math.min(++strikes[index], 8);
        long backoff = Math.min(LONGEST.toNanos(), FIRST.toNanos() << (n - 1));
        avoidUntil[index] = nanos.getAsLong() + backoff;
    }

    /** The URL at {@code index} answered: no longer avoided. */
    synchronized void answered(int index) {
        strikes[index] = 0;
        avoidUntil[index] = 0;
    }

    /** Whether the URL at {@code index} is being avoided now. */
    synchronized boolean avoided(int index) {
        return strikes[index] > 0 && avoidUntil[index] - nanos.getAsLong() > 0;
    }

    /**
     * The order in which a call tries the URLs: from {@code start} round the list, those not avoided
     * first, then the avoided ones, soonest to recover first. Each index appears once.
     */
    synchronized List<Integer> order(int start) {
        int n = avoidUntil.length;
        long now = nanos.getAsLong();
        List<Integer> healthy = new ArrayList<>(n);
        List<Integer> avoided = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int index = (start + i) % n;
            (strikes[index] > 0 && avoidUntil[index] - now > 0 ? avoided : healthy).add(index);
        }
        avoided.sort(Comparator.comparingLong(i -> avoidUntil[i] - now));
        healthy.addAll(avoided);
        return healthy;
    }
}
