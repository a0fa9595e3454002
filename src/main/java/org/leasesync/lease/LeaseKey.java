package org.leasesync.lease;

/**
 * What a lease is granted for: either a {@link TaskKey} (one user's sync of one scope, written
 * {@code userId|scope}) or a {@link JobKey} (a named job of the server, written {@code job:name}).
 * The lease layer ({@link LeaseStore}, {@link TaskRegistry}, {@link LeaseKeeper}, {@link Fence},
 * {@link LeaseRecord}, {@link HeldLease}) works with any lease key; runs, checkpoints and local data
 * belong to task keys only.
 *
 * <p>The written forms never collide: a task key always contains exactly the {@code |} that
 * separates user id and scope, a job key never contains {@code |} (its name's character set has
 * none) and always starts with {@code job:}. So {@link #parse} tells them apart from the text alone,
 * and the lease table needs no column saying which kind a row is.
 *
 * <p>Implementations are immutable records, thread-safe, and equal when their written forms are.
 */
public sealed interface LeaseKey permits TaskKey, JobKey {

    /** The written form: {@code userId|scope} for a task key, {@code job:name} for a job key. */
    String asString();

    /**
     * This key as a task key, for the parts of the registry that only task keys have (runs,
     * checkpoints, local data).
     *
     * @throws IllegalStateException naming the key when it is a job key
     */
    default TaskKey asTaskKey() {
        if (this instanceof TaskKey task) {
            return task;
        }
        throw new IllegalStateException("the lease key " + asString() + " is a job key, not a task key (userId|scope):"
                + " runs, checkpoints and local data exist only for task keys");
    }

    /**
     * Parses a written lease key, e.g. as stored in the lease table: text containing {@code |} is a
     * task key ({@link TaskKey#parse}), text starting with {@code job:} is a job key
     * ({@link JobKey#parse}).
     *
     * @throws IllegalArgumentException if the text is null, is neither form, or the part it names is
     *     invalid; the message names the text and the expected forms
     */
    static LeaseKey parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("lease key must not be null; expected 'userId|scope' or 'job:name'");
        }
        if (text.indexOf('|') >= 0) {
            return TaskKey.parse(text);
        }
        if (text.startsWith(JobKey.PREFIX)) {
            return JobKey.parse(text);
        }
        throw new IllegalArgumentException(
                "lease key '" + text.replaceAll("\\p{Cntrl}", "?") + "' is neither a task key"
                        + " 'userId|scope' (e.g. 'alice|course_sync') nor a job key 'job:name' (e.g. 'job:prune-audit-log')");
    }
}
