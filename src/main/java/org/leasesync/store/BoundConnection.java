package org.leasesync.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * A {@link SqlDatabase} over one connection that is already inside a caller's transaction: every
 * {@link #query} and {@link #transaction} runs on that connection and commits nothing, so a whole
 * sequence of store calls commits (or rolls back) together when the caller's transaction ends. Used
 * by {@link JdbcRunStore#inOneTransaction} for the start of a run (one commit instead of several).
 *
 * <p>An {@link SQLException} of the work leaves as {@link Escape} and must be unwrapped by whoever
 * opened the transaction ({@link #unwrap}), so that the real database's error handling (messages,
 * retry of a broken connection) sees the original exception.
 *
 * <p>Not thread-safe: confined to the thread running the caller's transaction.
 */
final class BoundConnection implements SqlDatabase {

    /** Carries an {@link SQLException} out of work that may not declare it. */
    static final class Escape extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Escape(SQLException cause) {
            super(cause);
        }

        @Override
        public synchronized SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }

    private final SqlDatabase outer;
    private final Connection connection;

    BoundConnection(SqlDatabase outer, Connection connection) {
        this.outer = Objects.requireNonNull(outer, "outer");
        this.connection = Objects.requireNonNull(connection, "connection");
    }

    @Override
    public SqlDialect dialect() {
        return outer.dialect();
    }

    @Override
    public String description() {
        return outer.description();
    }

    @Override
    public <T> T query(String what, SqlWork<T> work) {
        return run(work);
    }

    @Override
    public <T> T query(java.util.function.Supplier<String> what, SqlWork<T> work) {
        return run(work);
    }

    @Override
    public <T> T transaction(String what, SqlWork<T> work) {
        return run(work);
    }

    private <T> T run(SqlWork<T> work) {
        try {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new Escape(e);
        }
    }

    /** Runs {@code work}, turning an {@link Escape} back into its {@link SQLException}. */
    static <T> T unwrap(SqlWork<T> work, Connection c) throws SQLException {
        try {
            return work.apply(c);
        } catch (Escape e) {
            throw e.getCause();
        }
    }
}
