package org.leasesync.sync;

import java.util.Objects;

/**
 * What a full download changed, told to the user in the run's history when the server refused the
 * cursor (docs/protocol.md §4) and the client downloaded everything again. Counts compare the local
 * records before the download with those after it. Immutable.
 *
 * @param reason why the server refused the cursor: {@link #WENT_BACK}, {@link #OTHER_DATABASE},
 *     {@link #PURGED}, or {@code ""} when it did not say
 * @param removed records that were here and are no longer on the server (or are deleted there)
 * @param changed records whose version or content differs from what was here
 * @param added records that were not here
 * @param lostOwnEdits of the records here, those whose version was this device's own confirmed edit
 *     and that the server no longer has as they were (its data went back to before the edit)
 * @param pendingKept this device's edits still waiting to be pushed (none is dropped)
 * @param newConflicts of those, edits made conflicts because the version they were based on now
 *     holds other content on the server (a version number given again after a restore)
 */
public record ResyncSummary(
        String reason, int removed, int changed, int added, int lostOwnEdits, int pendingKept, int newConflicts) {

    /** The server's data went back to an earlier state (a restore from an older backup). */
    public static final String WENT_BACK = "went_back";
    /** The cursor was issued by another server database (data replaced, or another server). */
    public static final String OTHER_DATABASE = "other_database";
    /** Deletions after the cursor were purged on the server. */
    public static final String PURGED = "purged";

    /** @throws IllegalArgumentException naming a negative count */
    public ResyncSummary {
        Objects.requireNonNull(reason, "reason");
        if (removed < 0 || changed < 0 || added < 0 || lostOwnEdits < 0 || pendingKept < 0 || newConflicts < 0) {
            throw new IllegalArgumentException("counts must be >= 0, got removed " + removed + ", changed " + changed
                    + ", added " + added + ", own edits lost " + lostOwnEdits + ", pending " + pendingKept
                    + ", new conflicts " + newConflicts);
        }
    }

    /** Why the download happened, in plain words (also shown while it runs). */
    public static String cause(String reason) {
        return switch (reason) {
            case WENT_BACK -> "the server's data went back to an earlier state (restored from a backup?)";
            case OTHER_DATABASE ->
                "the server's data comes from another database than before (replaced, or another server)";
            case PURGED -> "the server no longer keeps deletions this device had not seen yet";
            default -> "the server no longer recognised where this device had left off";
        };
    }

    /**
     * One plain sentence for the history, e.g. "Downloaded everything again because the server's
     * data went back to an earlier state (restored from a backup?): 1 record removed, 1 changed; the
     * server no longer has an edit this device had sent (make it again if still needed); your 1
     * unsent edit is kept."
     */
    public String sentence() {
        java.util.List<String> counts = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i == 0 ? removed : i == 1 ? changed : added;
            String what = i == 0 ? "removed" : i == 1 ? "changed" : "new";
            if (n > 0) {
                counts.add(counts.isEmpty() ? n + " record" + (n == 1 ? " " : "s ") + what : n + " " + what);
            }
        }
        StringBuilder s = new StringBuilder("Downloaded everything again because ")
                .append(cause(reason))
                .append(": ")
                .append(counts.isEmpty() ? "nothing had changed here" : String.join(", ", counts));
        if (lostOwnEdits > 0) {
            s.append("; the server no longer has ")
                    .append(lostOwnEdits == 1 ? "an edit" : lostOwnEdits + " edits")
                    .append(" this device had sent (make ")
                    .append(lostOwnEdits == 1 ? "it" : "them")
                    .append(" again if still needed)");
        }
        if (pendingKept > 0) {
            s.append("; your ")
                    .append(pendingKept)
                    .append(" unsent edit")
                    .append(pendingKept == 1 ? " is" : "s are")
                    .append(" kept");
            if (newConflicts > 0) {
                s.append(" (")
                        .append(newConflicts)
                        .append(newConflicts == 1 ? " is" : " are")
                        .append(" now a conflict to resolve: based on a version the server no longer has)");
            }
        }
        return s.append('.').toString();
    }
}
