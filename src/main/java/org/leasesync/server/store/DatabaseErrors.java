package org.leasesync.server.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.h2.api.ErrorCode;

/**
 * What a database error means for the answer, on H2 and PostgreSQL alike. Stateless.
 */
public final class DatabaseErrors {

    /**
     * SQLSTATEs of a database that cannot be reached or is going away (PostgreSQL and H2). Both
     * vendors are matched by SQLSTATE, as pgjdbc gives no vendor code; H2's are those of its codes.
     */
    private static final Set<String> UNAVAILABLE = Set.of(
            "57P01", // admin_shutdown: the server is shutting down or the session was terminated
            "57P02", // crash_shutdown
            "57P03", // cannot_connect_now: starting up, in recovery
            "53300", // too_many_connections
            ErrorCode.getState(ErrorCode.DATABASE_IS_CLOSED),
            ErrorCode.getState(ErrorCode.DATABASE_CALLED_AT_SHUTDOWN),
            ErrorCode.getState(ErrorCode.CONNECTION_BROKEN_1));
    /**
     * SQLSTATEs of a transaction that lost a race and may simply be tried again: serialization
     * failure (40001, H2's deadlock too), PostgreSQL's deadlock and lock timeout, H2's lock timeout
     * (HYT00) and concurrent update.
     */
    private static final Set<String> RETRYABLE = Set.of(
            "40001",
            "40P01",
            "55P03",
            ErrorCode.getState(ErrorCode.LOCK_TIMEOUT_1),
            ErrorCode.getState(ErrorCode.CONCURRENT_UPDATE_1));

    private static final int MAX_CHAIN = 20;

    private DatabaseErrors() {}

    /**
     * True if {@code e} (or a cause) says the database is unreachable, going away or refusing
     * connections ({@link #isConnectionLost}), or the transaction lost a race that a retry may win
     * (serialization failure, deadlock, lock timeout) — an answer of {@code 503 unavailable} with
     * {@code Retry-After}, not of {@code 500}.
     */
    public static boolean isUnavailable(Throwable e) {
        return isConnectionLost(e) || hasState(e, RETRYABLE);
    }

    /**
     * True if {@code e} (or a cause) says the connection to the database is gone or cannot be
     * had: connection-class SQLSTATEs {@code 08xxx}, {@code 57P01..03}, {@code 53300}, H2's closed
     * database, HikariCP's {@code SQLTransientConnectionException} and JDBC's connection and
     * recoverable exceptions. A commit that fails so has an unknown outcome.
     */
    public static boolean isConnectionLost(Throwable e) {
        for (Throwable t : chain(e)) {
            if (t instanceof SQLTransientConnectionException
                    || t instanceof SQLRecoverableException
                    || t instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException s
                    && s.getSQLState() != null
                    && (s.getSQLState().startsWith("08") || UNAVAILABLE.contains(s.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasState(Throwable e, Set<String> states) {
        for (Throwable t : chain(e)) {
            if (t instanceof SQLException s && s.getSQLState() != null && states.contains(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rolls {@code c}'s transaction back after {@code failure}; if the rollback fails too (the
     * connection broke), that is added to {@code failure} as suppressed, so the caller rethrows
     * the original failure, which says what happened. Never throws.
     */
    public static void rollbackAfter(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * True if {@code e} (or an exception chained to it) is a unique-key violation (SQLSTATE 23505 on
     * both databases).
     */
    public static boolean isUniqueViolation(SQLException e) {
        return hasState(e, Set.of("23505"));
    }

    /**
     * The exceptions chained to {@code e} as causes and as JDBC "next" exceptions, each once (a
     * driver may chain an exception to itself), at most {@value #MAX_CHAIN}.
     */
    private static List<Throwable> chain(Throwable e) {
        List<Throwable> out = new ArrayList<>();
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Throwable> todo = new ArrayDeque<>();
        todo.add(e);
        while (!todo.isEmpty() && out.size() < MAX_CHAIN) {
            Throwable t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            out.add(t);
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            if (t instanceof SQLException s && s.getNextException() != null) {
                todo.add(s.getNextException());
            }
        }
        return out;
    }
}
