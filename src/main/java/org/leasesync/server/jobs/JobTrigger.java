package org.leasesync.server.jobs;

import java.util.Locale;

/** What started a job run; recorded with every run ({@code job_runs.run_trigger}). */
public enum JobTrigger {
    /** A due occurrence (slot) of the job's interval. */
    SCHEDULE,
    /** {@code POST /v1/admin/jobs/{name}/run}. */
    MANUAL,
    /** The run resumed the checkpoint of another owner's unfinished run (its instance died, froze or stopped). */
    TAKEOVER,
    /** The run resumed the checkpoint of this instance's own unfinished run (it failed, e.g. on a database outage). */
    RECOVERY;

    /** The stored and shown form: {@code schedule}, {@code manual}, {@code takeover}, {@code recovery}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses the stored form.
     *
     * @throws IllegalArgumentException naming the text if it is none of the four
     */
    public static JobTrigger parse(String text) {
        for (JobTrigger t : values()) {
            if (t.wire().equals(text)) {
                return t;
            }
        }
        throw new IllegalArgumentException(
                "unknown job trigger '" + text + "'; expected schedule, manual, takeover or recovery");
    }
}
