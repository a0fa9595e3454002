package org.leasesync.store;

/**
 * Told when opening the local database starts upgrading its schema, so a front end can say so (the
 * window's start-up text) while the migration runs; the log and the command line's stderr say it in any
 * case. Called at most once per open, on the opening thread, before the migration; it must not block.
 */
@FunctionalInterface
public interface UpgradeNotice {

    /** Says nothing beyond the log. */
    UpgradeNotice NONE = (from, to) -> {};

    /**
     * @param fromSchema the schema version the file has
     * @param toSchema the version it is being upgraded to
     */
    void upgrading(int fromSchema, int toSchema);
}
