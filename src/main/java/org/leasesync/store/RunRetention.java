package org.leasesync.store;

import java.time.Duration;
import java.util.Objects;

/**
 * How much run history the local database keeps per task key: a run is pruned only when it is
 * outside the key's newest {@code keepRuns} runs (by epoch) <em>and</em> ended more than
 * {@code keepFor} ago (by its recorded end, on the wall clock of the process that ended it). A
 * running run and the key's newest successful run are never pruned. Pruning happens after a run has
 * ended, at most {@code batchSize} runs at a time, so a long backlog goes away over several runs and
 * no single end waits long.
 *
 * @param keepRuns runs kept per key whatever their age; at least 1
 * @param keepFor runs younger than this are kept whatever their number; zero or positive
 * @param batchSize runs pruned at most per run end; 1 to 10,000
 */
public record RunRetention(int keepRuns, Duration keepFor, int batchSize) {

    /** Default: the newest 1,000 runs per key, anything younger than 30 days, 500 per run end. */
    public static final RunRetention DEFAULT = new RunRetention(1_000, Duration.ofDays(30), 500);

    /** @throws IllegalArgumentException naming the bad value */
    public RunRetention {
        if (keepRuns < 1) {
            throw new IllegalArgumentException("run retention: keepRuns must be >= 1, got " + keepRuns);
        }
        Objects.requireNonNull(keepFor, "keepFor");
        if (keepFor.isNegative()) {
            throw new IllegalArgumentException("run retention: keepFor must not be negative, got " + keepFor);
        }
        if (batchSize < 1 || batchSize > 10_000) {
            throw new IllegalArgumentException("run retention: batchSize must be 1..10000, got " + batchSize);
        }
    }
}
