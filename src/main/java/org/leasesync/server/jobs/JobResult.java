package org.leasesync.server.jobs;

import java.util.Locale;

/**
 * How a job run ended. {@link #RUNNING}, {@link #OK}, {@link #FAILED} and {@link #INTERRUPTED} are
 * stored in {@code job_runs.result}; {@link #LEASE_LOST} and {@link #SKIPPED} are only reported by
 * this instance (a run that lost its lease can write nothing, so its row stays {@code running} until
 * its successor marks it {@code interrupted}; a skipped occurrence writes no run).
 */
public enum JobResult {
    /** Still running (or its instance died: the next holder of the lease marks it interrupted). */
    RUNNING,
    /** Finished; its checkpoint is deleted. */
    OK,
    /** A batch failed (e.g. the database was unreachable); its checkpoint stays for a recovery run. */
    FAILED,
    /** Stopped before it finished (server shutdown, or taken over); its checkpoint stays for the next run. */
    INTERRUPTED,
    /** Not stored: the lease was lost mid-run, so nothing more was written. */
    LEASE_LOST,
    /** Not stored: the occurrence was already completed by another instance. */
    SKIPPED;

    /** The stored and shown form, lower case. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a stored result.
     *
     * @throws IllegalArgumentException naming the text if it is not a stored result
     */
    public static JobResult parse(String text) {
        for (JobResult r : values()) {
            if (r.wire().equals(text)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown job result '" + text + "'");
    }
}
