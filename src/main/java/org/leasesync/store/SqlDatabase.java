package org.leasesync.store;

import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.StoreException;

/**
 * What the lease store ({@link JdbcLeaseStore}) and the guarded-write primitive ({@link JdbcGuard})
 * need from a SQL database: its dialect, a name for messages, and two ways to run work on a pooled
 * connection. Implemented by the client's {@link Database} (H2 or PostgreSQL, schema migrated from
 * {@link SqlDialect#clientMigrations()}) and by {@link DataSourceDatabase} over any {@link javax.sql.DataSource}
 * (e.g. a server's own HikariCP pool and schema, which must include the lease table:
 * {@code org/leasesync/store/lease-table-*.sql}, docs/architecture.md "The store over any SQL
 * database").
 *
 * <p>Implementations are thread-safe; every method that runs work blocks on the database.
 */
public interface SqlDatabase {

    /** The SQL dialect: the only place where the vendors differ. */
    SqlDialect dialect();

    /** How the database is named in messages (a file path, a host and database name). */
    String description();

    /**
     * Runs {@code work} on a connection in auto-commit mode (reads and single statements). If the
     * connection breaks (see {@link SqlDialect#isBrokenConnection}), the work is run again on a
     * new connection, up to four attempts in all: so it must be safe to repeat.
     *
     * @param what a short description of the operation ("renew the lease for job:x"), used in messages
     * @return what {@code work} returned
     * @throws StoreException wrapping the {@link java.sql.SQLException}, naming {@code what} and the database
     * @throws LeasesyncException thrown by {@code work}, unchanged
     */
    <T> T query(String what, SqlWork<T> work);

    /**
     * {@link #query(String, SqlWork)} with the description built only when a message needs it: for
     * the lease store's hot path, where building "grant the lease for KEY" on every call would be a
     * measurable share of an acquire + release (docs/benchmarks.md, lease acquire + release).
     *
     * @param what builds the short description; called only when a failure is reported
     * @throws StoreException as {@link #query(String, SqlWork)}
     * @throws LeasesyncException thrown by {@code work}, unchanged
     */
    default <T> T query(java.util.function.Supplier<String> what, SqlWork<T> work) {
        return query(what.get(), work);
    }

    /**
     * Runs {@code work} in one transaction: committed if it returns, rolled back if it throws. A
     * connection that broke before the commit was sent lost the whole transaction, so the work is
     * run again (up to four attempts in all); a failure of the commit itself is ambiguous and is
     * reported, never repeated. A statement that failed inside {@code work} and was caught there
     * without {@link SqlDialect#recoverably} has aborted a PostgreSQL transaction: then nothing is
     * committed and a {@link StoreException} (SQLSTATE 25P02) is thrown, never a normal return
     * ({@link SqlDialect#checkNotAborted}).
     *
     * @param what a short description of the operation, used in messages
     * @return what {@code work} returned
     * @throws StoreException wrapping the {@link java.sql.SQLException}, naming {@code what} and the database
     * @throws LeasesyncException thrown by {@code work}, unchanged, after the rollback
     */
    <T> T transaction(String what, SqlWork<T> work);

    /**
     * {@link #transaction} for work that comes to the same whether it is committed once or twice (it
     * sets values it was given, never adds rows or counts): such work is also run again when the
     * commit itself broke, since whether that commit took effect no longer matters. Why: on the
     * client's shared H2 file the process hosting the file may exit while another process commits
     * through it; the commit then fails with "connection is broken" and was usually lost, and a
     * run's end written that way would stay "running" although this process could have recorded it
     * a moment later on the new host.
     *
     * @throws StoreException as {@link #transaction}
     * @throws LeasesyncException thrown by {@code work}, unchanged, after the rollback
     */
    default <T> T idempotentTransaction(String what, SqlWork<T> work) {
        return transaction(what, work);
    }
}
