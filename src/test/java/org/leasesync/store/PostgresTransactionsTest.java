package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.StoreException;
import org.leasesync.lease.TimeSource;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * What PostgreSQL does differently inside transactions, checked on a real server: the SQLSTATEs of
 * real races are the ones {@link SqlDialect} maps to contention; a failed statement aborts the whole
 * transaction (25P02), so a failure the code expects runs {@linkplain SqlDialect#recoverably
 * recoverably} and one it swallowed by mistake is an error, never a silent rollback reported as a
 * commit; a broken connection is retried by {@link DataSourceDatabase} as on H2.
 */
@PostgresTest
class PostgresTransactionsTest {

    static final SqlDialect PG = SqlDialect.POSTGRESQL;

    final ExecutorService threads = Executors.newCachedThreadPool();
    final List<AutoCloseable> closeables = new ArrayList<>();
    Postgres.Db pg;
    DataSourceDatabase db;

    @BeforeEach
    void setUp() throws Exception {
        pg = Postgres.newDatabase();
        HikariDataSource pool = Pools.postgres(pg, 10_000);
        closeables.add(pool);
        db = new DataSourceDatabase(pool, PG, "PostgreSQL " + pg.name());
        Pools.execute(pool, "CREATE TABLE item (id INT PRIMARY KEY, n INT NOT NULL)");
        Pools.execute(pool, "INSERT INTO item VALUES (1, 0), (2, 0)");
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    Connection raw() throws SQLException {
        Connection c = Pools.raw(pg);
        closeables.add(c);
        return c;
    }

    static SQLException failureOf(Future<?> f) throws Exception {
        try {
            f.get(60, TimeUnit.SECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            return (SQLException) e.getCause();
        }
    }

    @Test
    void theSqlStatesOfRealRacesAreTheOnesTheDialectMapsToContention() throws Exception {
        // 23505: a unique-key violation
        try (Statement s = raw().createStatement()) {
            SQLException dup = org.junit.jupiter.api.Assertions.assertThrows(
                    SQLException.class, () -> s.execute("INSERT INTO item VALUES (1, 0)"));
            assertThat(dup.getSQLState()).isEqualTo("23505");
            assertThat(PG.isDuplicateKey(dup)).isTrue();
            assertThat(PG.isContention(dup)).isFalse();
        }
        // 55P03: a row lock not granted within lock_timeout
        Connection holder = raw();
        holder.setAutoCommit(false);
        holder.createStatement()
                .executeQuery("SELECT n FROM item WHERE id = 1 FOR UPDATE")
                .close();
        try (Statement s = raw().createStatement()) {
            s.execute("SET lock_timeout = 100");
            SQLException timeout = org.junit.jupiter.api.Assertions.assertThrows(
                    SQLException.class, () -> s.executeUpdate("UPDATE item SET n = 1 WHERE id = 1"));
            assertThat(timeout.getSQLState()).isEqualTo("55P03");
            assertThat(PG.isContention(timeout)).isTrue();
        }
        holder.rollback();
        // 40001: a serialization failure (a repeatable-read transaction updates a row changed since its snapshot)
        Connection reader = raw();
        reader.setAutoCommit(false);
        reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        reader.createStatement().executeQuery("SELECT n FROM item WHERE id = 2").close();
        raw().createStatement().executeUpdate("UPDATE item SET n = 5 WHERE id = 2");
        SQLException serialization = org.junit.jupiter.api.Assertions.assertThrows(
                SQLException.class, () -> reader.createStatement().executeUpdate("UPDATE item SET n = 6 WHERE id = 2"));
        assertThat(serialization.getSQLState()).isEqualTo("40001");
        assertThat(PG.isContention(serialization)).isTrue();
        reader.rollback();
        // 40P01: a deadlock (two transactions lock the same two rows in opposite order)
        Connection x = raw();
        Connection y = raw();
        x.setAutoCommit(false);
        y.setAutoCommit(false);
        x.createStatement().executeUpdate("UPDATE item SET n = n + 1 WHERE id = 1");
        y.createStatement().executeUpdate("UPDATE item SET n = n + 1 WHERE id = 2");
        Future<?> xSecond =
                threads.submit(() -> x.createStatement().executeUpdate("UPDATE item SET n = n + 1 WHERE id = 2"));
        Pools.awaitLockWait(pg);
        Future<?> ySecond =
                threads.submit(() -> y.createStatement().executeUpdate("UPDATE item SET n = n + 1 WHERE id = 1"));
        SQLException xFailed = failureOf(xSecond);
        SQLException yFailed = failureOf(ySecond);
        SQLException deadlock = xFailed != null ? xFailed : yFailed;
        assertThat(xFailed == null ^ yFailed == null)
                .as("exactly one of the two is the deadlock victim")
                .isTrue();
        assertThat(deadlock.getSQLState()).isEqualTo("40P01");
        assertThat(PG.isContention(deadlock)).isTrue();
        x.rollback();
        y.rollback();
    }

    @Test
    void aFailureSwallowedInsideATransactionIsAnErrorNeverASilentRollbackReportedAsACommit() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> db.transaction("update item 1 and ignore a failure", c -> {
                    attempts.incrementAndGet();
                    c.createStatement().executeUpdate("UPDATE item SET n = 42 WHERE id = 1");
                    try {
                        c.createStatement()
                                .executeUpdate("INSERT INTO item VALUES (2, 0)"); // duplicate: aborts the transaction
                    } catch (SQLException ignoredByMistake) {
                        // the mistake under test
                    }
                    return "done";
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("could not update item 1 and ignore a failure in PostgreSQL " + pg.name())
                .hasMessageContaining("25P02")
                .cause()
                .isInstanceOf(SQLException.class);
        assertThat(attempts).hasValue(1);
        Integer n = db.query("read item 1", c -> {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT n FROM item WHERE id = 1")) {
                rs.next();
                return rs.getInt(1);
            }
        });
        assertThat(n).as("nothing of the aborted transaction was written").isZero();
    }

    @Test
    void anExpectedFailureRunRecoverablyKeepsTheTransactionAndItsEarlierWrites() {
        String answer = db.transaction("update item 1, then try a duplicate", c -> {
            c.createStatement().executeUpdate("UPDATE item SET n = 7 WHERE id = 1");
            try {
                PG.recoverably(c, x -> x.createStatement().executeUpdate("INSERT INTO item VALUES (2, 0)"));
                return "inserted";
            } catch (SQLException e) {
                assertThat(PG.isDuplicateKey(e)).isTrue();
            }
            c.createStatement().executeUpdate("UPDATE item SET n = 8 WHERE id = 2");
            return "duplicate";
        });
        assertThat(answer).isEqualTo("duplicate");
        List<Integer> ns = db.query("read", c -> {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT n FROM item ORDER BY id")) {
                List<Integer> read = new ArrayList<>();
                while (rs.next()) {
                    read.add(rs.getInt(1));
                }
                return read;
            }
        });
        assertThat(ns).containsExactly(7, 8);
    }

    @Test
    void theClientIdSurvivesLosingItsInsertRaceToAnotherProcess() throws Exception {
        Postgres.Db clientDb = Postgres.newDatabase();
        Database database =
                Database.open(clientDb.jdbcUrl(), Postgres.USER, Postgres.PASSWORD, "PostgreSQL " + clientDb.name(), 2);
        closeables.add(database);
        JdbcLocalEdits edits = new JdbcLocalEdits(database, TimeSource.system());
        try (Connection other = Pools.raw(clientDb)) {
            other.setAutoCommit(false);
            other.createStatement()
                    .executeUpdate("INSERT INTO client_identity (id, client_id) VALUES (1, 'the-other-process')");
            Future<String> mine =
                    threads.submit(edits::clientId); // reads no row, then its insert queues behind the other's
            Pools.awaitLockWait(clientDb);
            other.commit();
            assertThat(mine.get(30, TimeUnit.SECONDS)).isEqualTo("the-other-process");
        }
        assertThat(edits.clientId()).isEqualTo("the-other-process");
    }

    @Test
    void aBrokenConnectionIsRetriedOnANewOneBeforeTheCommitAndAStatementFailureIsNot() throws Exception {
        Connection admin = raw();
        AtomicInteger queries = new AtomicInteger();
        Integer one = db.query("read after losing the connection", c -> {
            if (queries.incrementAndGet() == 1) {
                terminate(admin, c);
            }
            try (ResultSet rs = c.createStatement().executeQuery("SELECT 1")) {
                rs.next();
                return rs.getInt(1);
            }
        });
        assertThat(one).isEqualTo(1);
        assertThat(queries).hasValue(2);

        AtomicInteger transactions = new AtomicInteger();
        db.transaction("insert item 3 after losing the connection", c -> {
            c.createStatement().executeUpdate("INSERT INTO item VALUES (3, 0)");
            if (transactions.incrementAndGet() == 1) {
                terminate(admin, c); // the insert is lost with the connection; the work runs again
            }
            return c.createStatement().executeUpdate("UPDATE item SET n = n + 1 WHERE id = 3");
        });
        assertThat(transactions).hasValue(2);
        try (ResultSet rs = admin.createStatement().executeQuery("SELECT count(*), max(n) FROM item WHERE id = 3")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1);
            assertThat(rs.getInt(2)).isEqualTo(1);
        }

        AtomicInteger failing = new AtomicInteger();
        assertThatThrownBy(() -> db.query("run a bad statement", c -> {
                    failing.incrementAndGet();
                    return c.createStatement().execute("SELEKT 1");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("could not run a bad statement in PostgreSQL " + pg.name() + ": ")
                .cause()
                .isInstanceOf(SQLException.class);
        assertThat(failing).hasValue(1);
    }

    /** Ends the server process behind {@code victim}, as a database restart or a network cut would. */
    private static void terminate(Connection admin, Connection victim) throws SQLException {
        int pid;
        try (ResultSet rs = victim.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        }
        try (PreparedStatement ps = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setInt(1, pid);
            ps.executeQuery().close();
        }
    }
}
