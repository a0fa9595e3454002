package org.leasesync.server.jobs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.leasesync.lease.TimeSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per job, a last completed slot later than this instance's clock's, and when (monotonic) it was first
 * seen: what lets a job go on when another instance's clock runs ahead, or this one was stepped back.
 * Thread-safe.
 */
final class AheadSlots {

    private static final Logger log = LoggerFactory.getLogger(AheadSlots.class);

    private final TimeSource time;
    private final Map<String, long[]> aheadSince = new ConcurrentHashMap<>();

    AheadSlots(TimeSource time) {
        this.time = time;
    }

    /**
     * The slot to ask for: this clock's, or — when the last completed slot lies ahead of it and has
     * not changed for a whole interval on the monotonic clock — the one after it. Neither a clock
     * stepped back nor an instance whose clock runs hours ahead can stop a job for longer than one
     * interval; instances never disagree about an occurrence, since completions only raise the slot.
     */
    Long catchUp(String job, Long slot, Long last, long intervalNanos) {
        if (slot == null || last == null || last <= slot) {
            aheadSince.remove(job);
            return slot;
        }
        long now = time.monotonicNanos();
        long[] seen = aheadSince.compute(job, (k, o) -> o != null && o[0] == last ? o : new long[] {last, now});
        if (now - seen[1] < intervalNanos) {
            return slot;
        }
        log.debug(
                "job {}: slot {} recorded ahead of this clock's {} and unchanged for an interval; running slot {}",
                job,
                last,
                slot,
                last + 1);
        aheadSince.put(job, new long[] {last + 1, now}); // the next one is due an interval after this one
        return last + 1;
    }

    /** Whether {@code job}'s last completed slot was ahead of this clock at the last look. */
    boolean waiting(String job) {
        return aheadSince.containsKey(job);
    }
}
