package org.leasesync.run;

import java.util.OptionalInt;

/**
 * An immutable count of what a run has done so far, for a progress bar. Published with a progress
 * text through {@link RunContext#progress(String, RunProgress)}; kept in memory only.
 *
 * @param pagesPulled pages pulled in this run, {@code >= 0}
 * @param recordsPulled records pulled in this run, {@code >= 0}
 * @param changesPushed outbox entries the server answered in this run, {@code >= 0}
 * @param pushTotal the pending outbox entries when the push stage began; empty before the push stage
 *     (the number of pages to pull is never known in advance)
 */
public record RunProgress(int pagesPulled, int recordsPulled, int changesPushed, OptionalInt pushTotal) {

    /** Nothing done yet. */
    public static final RunProgress NONE = new RunProgress(0, 0, 0, OptionalInt.empty());

    public RunProgress {
        if (pagesPulled < 0 || recordsPulled < 0 || changesPushed < 0) {
            throw new IllegalArgumentException("progress counts must be >= 0, got pagesPulled=" + pagesPulled
                    + ", recordsPulled=" + recordsPulled + ", changesPushed=" + changesPushed);
        }
        if (pushTotal == null) {
            throw new IllegalArgumentException("pushTotal must not be null (use OptionalInt.empty())");
        }
        if (pushTotal.isPresent() && pushTotal.getAsInt() < 0) {
            throw new IllegalArgumentException("pushTotal must be >= 0, got " + pushTotal.getAsInt());
        }
    }

    /** After pulling {@code pages} pages holding {@code records} records. */
    public static RunProgress pulled(int pages, int records) {
        return new RunProgress(pages, records, 0, OptionalInt.empty());
    }

    /** The push stage began with {@code total} pending entries; keeps the pull counts. */
    public RunProgress pushing(int total) {
        return new RunProgress(pagesPulled, recordsPulled, 0, OptionalInt.of(total));
    }

    /** {@code n} more entries were answered by the server. */
    public RunProgress pushedMore(int n) {
        return new RunProgress(pagesPulled, recordsPulled, changesPushed + n, pushTotal);
    }

    /**
     * The pushed fraction in {@code [0, 1]}, or empty while pulling (no total known) — an
     * indeterminate bar. A total of zero reads as done; more pushed than the total (edits saved during
     * the run) reads as 1.
     */
    public java.util.OptionalDouble pushedFraction() {
        if (pushTotal.isEmpty()) {
            return java.util.OptionalDouble.empty();
        }
        int total = pushTotal.getAsInt();
        return java.util.OptionalDouble.of(total == 0 ? 1.0 : Math.min(1.0, changesPushed / (double) total));
    }
}
