package org.leasesync.store;

import java.nio.file.Path;
import org.leasesync.run.RunHistory;

/**
 * The local database with its registry stores, opened together. Close it to close the pool.
 *
 * @param database the database
 * @param leases lease rows
 * @param runs the coordinator's writes of runs, triggers, stages and checkpoints (and their reads)
 */
public record LocalStore(Database database, JdbcLeaseStore leases, JdbcRunStore runs) implements AutoCloseable {

    /** Opens (creating and migrating if needed) the database in {@code dataDir}. */
    public static LocalStore openFile(Path dataDir) {
        return of(Database.openFile(dataDir));
    }

    /**
     * Opens (creating and migrating if needed) the database in {@code dataDir}, waiting at most
     * {@code openTimeout} for a process that holds it but does not answer.
     *
     * @see Database#openFile(Path, java.time.Duration)
     */
    public static LocalStore openFile(Path dataDir, java.time.Duration openTimeout) {
        return of(Database.openFile(dataDir, openTimeout));
    }

    /** As {@link #openFile(Path, java.time.Duration)}, telling {@code notice} when the schema is upgraded. */
    public static LocalStore openFile(Path dataDir, java.time.Duration openTimeout, UpgradeNotice notice) {
        return of(Database.openFile(dataDir, openTimeout, notice));
    }

    /** A private in-memory database. */
    public static LocalStore openInMemory() {
        return of(Database.openInMemory());
    }

    /** Wraps an open database. */
    public static LocalStore of(Database db) {
        return new LocalStore(db, new JdbcLeaseStore(db), new JdbcRunStore(db));
    }

    /** The recorded runs and checkpoints, read-only: for status, history and notifications. */
    public RunHistory history() {
        return runs;
    }

    @Override
    public void close() {
        database.close();
    }
}
