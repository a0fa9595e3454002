package org.leasesync.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.h2.api.ErrorCode;
import org.leasesync.store.h2.H2Messages;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * The few places where H2 and PostgreSQL differ, isolated here so that all other SQL stays
 * standard: error codes (duplicate key, contention, broken connection), what a failed statement
 * does to its transaction, how text sorts, the session
 * set-up and where the client's schema migrations live (docs/architecture.md, "The store over any
 * SQL database"). Immutable and thread-safe.
 */
public enum SqlDialect {
    H2,
    POSTGRESQL;

    /**
     * The highest version among the client's migrations ({@link #clientMigrations()}; the same for
     * both vendors). An open skips Flyway when the database is already there ({@link SchemaVersion});
     * {@code SchemaVersionTest} fails when a migration is added and this is not raised.
     */
    public static final int LATEST_CLIENT_MIGRATION = 14;

    /** How long a statement waits for a row lock before giving up as contention (H2's {@code LOCK_TIMEOUT}). */
    public static final long LOCK_TIMEOUT_MILLIS = 10_000;

    /** Detects the dialect from a JDBC URL: {@code jdbc:postgresql:...} is PostgreSQL, anything else H2. */
    public static SqlDialect fromJdbcUrl(String url) {
        return url != null && url.startsWith("jdbc:postgresql:") ? POSTGRESQL : H2;
    }

    /** True if the exception (or a chained one) is a unique-key violation (SQLSTATE 23505 in both). */
    public boolean isDuplicateKey(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if ("23505".equals(x.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if the statement lost a race for a row: lock timeout, deadlock, serialization failure
     * or H2's "concurrent update". The caller treats it as contention, not a failure.
     */
    public boolean isContention(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return false;
        }
        return switch (this) {
            case H2 ->
                e.getErrorCode() == ErrorCode.DEADLOCK_1
                        || e.getErrorCode() == ErrorCode.LOCK_TIMEOUT_1
                        || e.getErrorCode() == ErrorCode.CONCURRENT_UPDATE_1;
            // SQLSTATEs, as pgjdbc gives no vendor code: 40001 serialization failure, 40P01 deadlock,
            // 55P03 lock not available (lock_timeout, NOWAIT)
            case POSTGRESQL -> state.equals("40001") || state.equals("40P01") || state.equals("55P03");
        };
    }

    /**
     * True if the connection (not the statement) failed, so that work which had not reached its
     * commit may be run again on a new connection: SQLSTATE class 08 (connection exception) and a
     * pool's {@link SQLTransientConnectionException} in both; for H2 also the messages of a
     * shared file database whose host process changed ({@link H2Messages#isHandover}); for PostgreSQL
     * also 57P01/57P02/57P03 (the server shut down, crashed, or is starting).
     */
    public boolean isBrokenConnection(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("08") || e instanceof SQLTransientConnectionException) {
            return true;
        }
        return switch (this) {
            case H2 -> H2Messages.isHandover(e.getMessage());
            case POSTGRESQL -> state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
        };
    }

    /**
     * After a statement on {@code c} failed, whether the connection itself is gone, whatever the
     * failure said: for H2, a connection that no longer answers ({@link Connection#isValid}). A
     * remote session on a shared file whose host process is exiting fails in more ways than the
     * messages {@link #isBrokenConnection} knows (an internal error about a table lock, a general
     * error about the transaction) while H2 closes it; what they share is that the session is
     * closed afterwards, and the host rolled its transaction back. PostgreSQL says so in its
     * SQLSTATEs, so there this is always false. Blocks for at most a second; never throws.
     */
    public boolean isLost(Connection c) {
        if (this != H2) {
            return false;
        }
        try {
            return !c.isValid(1);
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Runs one statement whose failure the caller means to handle (e.g. a duplicate key that means
     * "another owner was first") without losing the transaction around it. PostgreSQL aborts the
     * whole transaction on any failed statement (every later statement, and the commit, then fail
     * with 25P02), so there the statement runs inside a savepoint that is rolled back when it fails.
     * H2 undoes only the failed statement, so there (and in auto-commit mode) it runs as it is.
     *
     * @return what {@code statement} returned
     * @throws SQLException the statement's failure, unchanged (after the rollback to the savepoint)
     */
    public <T> T recoverably(Connection c, SqlWork<T> statement) throws SQLException {
        if (this != POSTGRESQL || c.getAutoCommit()) {
            return statement.apply(c);
        }
        Savepoint savepoint = c.setSavepoint();
        T result;
        try {
            result = statement.apply(c);
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback(savepoint);
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
        c.releaseSavepoint(savepoint);
        return result;
    }

    /**
     * Makes the transaction {@code c} starts next SERIALIZABLE on H2, for the lease store's grants;
     * nothing on PostgreSQL. Under H2's default READ COMMITTED, the conditional {@code UPDATE} of one
     * lease row from many connections at once can, rarely, write over a grant another transaction has
     * just committed: seen on H2 2.4.240 with file databases under load, as two committed grants with
     * one epoch and two holders at once (docs/architecture.md, "H2 and concurrent grants"). Under
     * SERIALIZABLE, H2 refuses a write to a row changed since the statement's snapshot (40001, a
     * {@linkplain #isContention contention} the grant answers as "not granted"). PostgreSQL's READ
     * COMMITTED re-evaluates the condition on the newest row, as the grant needs. Call it before the
     * transaction's first statement: H2 commits an open transaction when the level changes (so a
     * grant inside a joint transaction does not call it; the transaction's own start did). The pool
     * sets the level back when the connection is returned.
     *
     * @throws SQLException if the driver refuses the level
     */
    public void isolateGrant(Connection c) throws SQLException {
        if (this == H2) { // no read of the level first: on a shared file's remote session H2 answers it with a query

            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        }
    }

    /**
     * {@link #recoverably} for one prepared statement's {@code executeUpdate}, without building a
     * lambda for it: on H2 and in auto-commit mode the statement simply runs; only inside a
     * PostgreSQL transaction does it run in a savepoint. For the lease store's grants, which run on
     * every acquire (docs/benchmarks.md, lease acquire + release).
     *
     * @return the statement's update count
     * @throws SQLException the statement's failure, unchanged (after the rollback to the savepoint)
     */
    public int executeUpdateRecoverably(Connection c, PreparedStatement ps) throws SQLException {
        if (this != POSTGRESQL || c.getAutoCommit()) {
            return ps.executeUpdate();
        }
        return recoverably(c, x -> ps.executeUpdate());
    }

    /**
     * Checks, right before a commit, that no statement of the transaction failed unnoticed. On
     * PostgreSQL a failed statement aborts the transaction; if the caller caught and ignored the
     * failure (instead of using {@link #recoverably}), the driver's {@code commit()} returns normally
     * while the server rolls everything back (pgjdbc 42.7 raises nothing), so the caller would take a
     * lost write for a committed one. This turns that into an error. With pgjdbc the driver's
     * transaction state is read (no round trip); with another driver a {@code SELECT 1} probes it.
     * On H2 a failed statement is undone alone and the transaction stays usable: nothing to check.
     *
     * @throws SQLException with SQLSTATE 25P02 if the transaction was aborted
     */
    public void checkNotAborted(Connection c) throws SQLException {
        if (this != POSTGRESQL) {
            return;
        }
        if (c.isWrapperFor(BaseConnection.class)) {
            BaseConnection pg = c.unwrap(BaseConnection.class);
            if (pg.getTransactionState() == TransactionState.FAILED) {
                throw new SQLException(ABORTED_MESSAGE, "25P02");
            }
            return;
        }
        try (Statement probe = c.createStatement()) {
            probe.execute("SELECT 1");
        } catch (SQLException e) {
            if ("25P02".equals(e.getSQLState())) {
                throw new SQLException(ABORTED_MESSAGE, "25P02", e);
            }
            throw e;
        }
    }

    private static final String ABORTED_MESSAGE = "a statement failed inside the transaction, so PostgreSQL aborted it"
            + " (SQLSTATE 25P02) and nothing of it was written";

    /**
     * An {@code ORDER BY} term that sorts a text column by code point, as H2 does: PostgreSQL sorts
     * by the database's collation (e.g. {@code en_US.UTF-8} ignores punctuation such as {@code |}
     * and {@code :} at first), so there the column is sorted with {@code COLLATE "C"}. Keeps
     * "ordered by key" the same order on both vendors, whatever the server's locale.
     */
    public String textOrder(String column) {
        return switch (this) {
            case H2 -> column;
            case POSTGRESQL -> column + " COLLATE \"C\"";
        };
    }

    /** The clause that locks the selected rows until commit. */
    public String forUpdate() {
        return " FOR UPDATE";
    }

    /**
     * SQL run once on every new pooled connection, or null for none. PostgreSQL waits for a row
     * lock forever by default; this makes it give up after {@link #LOCK_TIMEOUT_MILLIS} with 55P03
     * (contention), as H2 does with {@code LOCK_TIMEOUT} in its URL — so a grant queued behind a
     * stopped process's open transaction answers "held" instead of hanging.
     */
    public String connectionInitSql() {
        return switch (this) {
            case H2 -> null;
            case POSTGRESQL -> "SET lock_timeout = " + LOCK_TIMEOUT_MILLIS;
        };
    }

    /**
     * Where the client's Flyway migrations for this vendor live: {@code classpath:db/migration-common}
     * (the migrations that are the same SQL on both vendors) and the vendor's own,
     * {@code classpath:db/migration} (H2) or {@code classpath:db/migration-postgresql} (the same
     * schema in PostgreSQL's types). Applied migrations never change (Flyway checks their checksums,
     * and existing user databases have applied them); a new one is written once, in the common
     * location, unless its SQL truly differs. A fresh array.
     */
    public String[] clientMigrations() {
        return new String[] {
            switch (this) {
                case H2 -> "classpath:db/migration";
                case POSTGRESQL -> "classpath:db/migration-postgresql";
            },
            "classpath:db/migration-common"
        };
    }
}
