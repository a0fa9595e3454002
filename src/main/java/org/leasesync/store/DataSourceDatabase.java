package org.leasesync.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.leasesync.lease.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SqlDatabase} over any pooled {@link DataSource}: what a server constructs to run the
 * lease store ({@link JdbcLeaseStore}) and guarded writes ({@link JdbcGuard}) over its own pool and
 * schema. Failures become {@link StoreException} naming the operation and the database, with the
 * {@link SQLException} kept as the cause; a broken connection (one the failure names as broken, or
 * one that no longer answers after it: {@link SqlDialect#isLost}) is retried as
 * {@link SqlDatabase#query} and {@link SqlDatabase#transaction} describe: at least four attempts,
 * pausing 150, 300, 450 ms and then up to 1 s between attempts, and more attempts while the
 * {@linkplain #DataSourceDatabase(DataSource, SqlDialect, String, Duration) broken-connection
 * retry budget} lasts (1 s by default; the client's shared H2 file allows 15 s, because its host
 * process may exit and hand the file to another one). The client's {@link Database} runs its work through one of these.
 *
 * <p>Does not own the data source: closing the pool is its creator's business. The schema is not
 * migrated here; it must already hold the lease table ({@code org/leasesync/store/lease-table-*.sql}).
 *
 * <p>Thread-safe as the data source is (HikariCP's is); every method that runs work blocks.
 */
public final class DataSourceDatabase implements SqlDatabase {

    /** Turns a failed statement into the one exception the caller sees. */
    @FunctionalInterface
    interface FailureTranslator {
        StoreException translate(String what, SQLException e);
    }

    private static final Logger log = LoggerFactory.getLogger(DataSourceDatabase.class);
    private static final int MIN_ATTEMPTS = 4;
    /** How long a broken connection is retried unless configured: about the old four attempts. */
    public static final Duration DEFAULT_BROKEN_CONNECTION_RETRY = Duration.ofSeconds(1);

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final String description;
    private final FailureTranslator failure;
    private final long retryBudgetNanos;

    /**
     * @param dataSource a pooled data source (connections are taken and returned per call)
     * @param dialect the database's dialect
     * @param description how to name the database in messages, e.g. {@code "PostgreSQL db1.internal/sync"}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code description} is blank
     */
    public DataSourceDatabase(DataSource dataSource, SqlDialect dialect, String description) {
        this(dataSource, dialect, description, DEFAULT_BROKEN_CONNECTION_RETRY, null);
    }

    /**
     * @param brokenConnectionRetry how long work that failed on a broken connection (before anything
     *     was committed) keeps being tried again, counted from the first attempt on the monotonic
     *     clock; at least four attempts are made whatever this says
     * @throws IllegalArgumentException if {@code brokenConnectionRetry} is negative or over 10 minutes
     */
    public DataSourceDatabase(
            DataSource dataSource, SqlDialect dialect, String description, Duration brokenConnectionRetry) {
        this(dataSource, dialect, description, brokenConnectionRetry, null);
    }

    /** With a translator of failures; {@code null} means the plain one. */
    DataSourceDatabase(
            DataSource dataSource,
            SqlDialect dialect,
            String description,
            Duration brokenConnectionRetry,
            FailureTranslator failure) {
        Objects.requireNonNull(brokenConnectionRetry, "brokenConnectionRetry");
        if (brokenConnectionRetry.isNegative() || brokenConnectionRetry.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException(
                    "the broken-connection retry must be 0..10m, got " + brokenConnectionRetry);
        }
        this.retryBudgetNanos = brokenConnectionRetry.toNanos();
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.description = Objects.requireNonNull(description, "description");
        if (description.isBlank()) {
            throw new IllegalArgumentException("the database description must not be blank");
        }
        this.failure = failure != null ? failure : this::plainFailure;
    }

    /** The data source connections are taken from. */
    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public <T> T transaction(String what, SqlWork<T> work) {
        return transaction(what, work, false);
    }

    @Override
    public <T> T idempotentTransaction(String what, SqlWork<T> work) {
        return transaction(what, work, true);
    }

    /** @param repeatable whether a broken commit is run again too ({@link SqlDatabase#idempotentTransaction}) */
    private <T> T transaction(String what, SqlWork<T> work, boolean repeatable) {
        long start = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            boolean committing = false;
            boolean lost = false;
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                try {
                    T result = work.apply(c);
                    dialect.checkNotAborted(c); // PostgreSQL: a swallowed failure must not look committed
                    committing = true;
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException | Error e) {
                    lost = e instanceof SQLException && dialect.isLost(c);
                    // An Error too: the pool must never get back a connection with half a transaction.
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                // A connection that broke before the commit was sent lost the whole transaction (the
                // database rolls it back): doing it again is safe. A failure of the commit itself is
                // ambiguous and is reported, unless the work is the same done twice.
                if ((!committing || repeatable)
                        && mayRetry(attempt, start)
                        && (lost || dialect.isBrokenConnection(e))) {
                    pause(attempt);
                    continue;
                }
                throw failure.translate(what, e);
            }
        }
    }

    @Override
    public <T> T query(String what, SqlWork<T> work) {
        return query(() -> what, work);
    }

    @Override
    public <T> T query(java.util.function.Supplier<String> what, SqlWork<T> work) {
        long start = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            Connection c;
            try {
                c = dataSource.getConnection();
            } catch (SQLException e) {
                if (mayRetry(attempt, start)
                        && dialect.isBrokenConnection(e)) { // no statement ran yet: safe to try again
                    pause(attempt);
                    continue;
                }
                throw failure.translate(what.get(), e);
            }
            boolean lost = false;
            try (c) {
                try {
                    return work.apply(c);
                } catch (SQLException e) {
                    lost = dialect.isLost(c);
                    throw e;
                }
            } catch (SQLException e) {
                // Reads and the idempotent single statements run here (renew, release) may be repeated
                // when the connection broke mid-statement (for H2: the shared file moved to another host process).
                if (mayRetry(attempt, start) && (lost || dialect.isBrokenConnection(e))) {
                    pause(attempt);
                    continue;
                }
                throw failure.translate(what.get(), e);
            }
        }
    }

    private StoreException plainFailure(String what, SQLException e) {
        return new StoreException("could not " + what + " in " + description + ": " + e.getMessage(), e);
    }

    private boolean mayRetry(int attempt, long startNanos) {
        return attempt < MIN_ATTEMPTS || System.nanoTime() - startNanos < retryBudgetNanos;
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(Math.min(150L * attempt, 1_000L));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("rollback failed: {}", e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "DataSourceDatabase[" + dialect + " " + description + "]";
    }
}
