package org.leasesync.store;

import java.nio.file.Path;

/**
 * The local database with its registry stores, opened together. Close it to close the pool.
 *
 * @param database the database
 * @param leases lease rows
 * @param runs runs, triggers, stages and checkpoints
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

    /** A private in-memory database. */
    public static LocalStore openInMemory() {
        return of(Database.openInMemory());
    }

    /** Wraps an open database. */
    public static LocalStore of(Database db) {
        return new LocalStore(db, new JdbcLeaseStore(db), new JdbcRunStore(db));
    }

    @Override
    public void close() {
        database.close();
    }
}
