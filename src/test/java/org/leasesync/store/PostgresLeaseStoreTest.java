package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.JobKey;
import org.leasesync.lease.LeaseKey;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.testing.ManualTime;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;

/**
 * The lease store on a real PostgreSQL, the way a server runs it: over its own HikariCP pool
 * ({@link DataSourceDatabase}) on a schema that holds only {@code lease-table-postgresql.sql}. Checks
 * what is specific to PostgreSQL: the grant's fast path is one {@code UPDATE ... RETURNING}; a grant
 * that loses the insert race inside its transaction answers empty (the unique-key violation neither
 * leaks out nor aborts the answer); a grant queued behind a locked row gives up as contention
 * (55P03); ordering by key does not depend on the database's collation.
 */
@PostgresTest
class PostgresLeaseStoreTest {

    static final Duration TTL = Duration.ofSeconds(60);
    static final JobKey JOB = JobKey.of("purge-tombstones");

    final ManualTime time = new ManualTime();
    final ExecutorService threads = Executors.newCachedThreadPool();
    final List<HikariDataSource> pools = new ArrayList<>();
    Postgres.Db pg;

    @AfterEach
    void close() {
        threads.shutdownNow();
        pools.forEach(HikariDataSource::close);
    }

    /** A fresh database holding only the documented lease table, and a lease store over a pool on it. */
    JdbcLeaseStore serverStore(long lockTimeoutMillis) throws Exception {
        if (pg == null) {
            pg = Postgres.newDatabase();
            try (Connection c = Pools.raw(pg);
                    Statement s = c.createStatement()) {
                s.execute(JdbcLeaseStore.leaseTableSql(SqlDialect.POSTGRESQL));
            }
        }
        return new JdbcLeaseStore(database(lockTimeoutMillis));
    }

    DataSourceDatabase database(long lockTimeoutMillis) {
        HikariDataSource pool = Pools.postgres(pg, lockTimeoutMillis);
        pools.add(pool);
        return new DataSourceDatabase(pool, SqlDialect.POSTGRESQL, "PostgreSQL " + pg.name());
    }

    static OwnerId owner(String name) {
        return new OwnerId("server-" + name, 100, 1, Integer.toHexString(name.hashCode() & 0xffffff));
    }

    @Test
    void theFastPathIsOneUpdateReturningStatementAndGrantsOnlyAFreeExistingRow() throws Exception {
        JdbcLeaseStore leases = serverStore(10_000);
        Instant now = time.now();
        assertThat(leases.grantIfFree(JOB, owner("a"), TTL, now))
                .as("never granted: no row to update")
                .isEmpty();
        LeaseRecord first =
                leases.tryGrant(JOB, owner("a"), TTL, now, Optional.empty()).orElseThrow();
        assertThat(first.epoch()).isEqualTo(1);
        assertThat(leases.grantIfFree(JOB, owner("b"), TTL, now)).as("held").isEmpty();
        assertThat(leases.release(first.fence(), now)).isTrue();
        LeaseRecord second =
                leases.grantIfFree(JOB, owner("b"), TTL, now.plusSeconds(1)).orElseThrow();
        assertThat(second.key()).isEqualTo(JOB);
        assertThat(second.owner()).contains(owner("b"));
        assertThat(second.epoch()).isEqualTo(2);
        assertThat(second.heartbeat()).isEqualTo(3);
        assertThat(second.expiresAt()).isEqualTo(now.plusSeconds(1).plus(TTL));
        assertThat(leases.read(JOB)).contains(second);
    }

    @Test
    void aGrantThatLosesTheInsertRaceInsideItsTransactionAnswersEmptyNotAnError() throws Exception {
        JdbcLeaseStore leases = serverStore(0); // wait for the row lock for ever: only the duplicate key can answer
        try (Connection other = Pools.raw(pg)) {
            other.setAutoCommit(false);
            try (PreparedStatement ps =
                    other.prepareStatement("INSERT INTO lease (task_key, owner_id, epoch, heartbeat,"
                            + " ttl_ms, renewed_at_ms) VALUES (?, ?, 1, 1, 60000, 0)")) {
                ps.setString(1, JOB.asString());
                ps.setString(2, owner("other").asString());
                ps.executeUpdate();
            }
            // our grant: the UPDATE finds no row, the row check sees none, the INSERT queues behind the other's
            Future<Optional<LeaseRecord>> grant =
                    threads.submit(() -> leases.tryGrant(JOB, owner("me"), TTL, time.now(), Optional.empty()));
            Pools.awaitLockWait(pg);
            other.commit();
            assertThat(grant.get(30, TimeUnit.SECONDS))
                    .as("lost the insert race: contention")
                    .isEmpty();
        }
        LeaseRecord row = leases.read(JOB).orElseThrow();
        assertThat(row.owner()).contains(owner("other"));
        assertThat(row.epoch()).isEqualTo(1);
        // the pooled connection that saw the violation is healthy and the key works as usual
        assertThat(leases.release(row.fence(), time.now())).isTrue();
        assertThat(leases.grantIfFree(JOB, owner("me"), TTL, time.now())
                        .orElseThrow()
                        .epoch())
                .isEqualTo(2);
    }

    @Test
    void aGrantQueuedBehindALockedLeaseRowGivesUpAsContentionAfterTheLockTimeout() throws Exception {
        JdbcLeaseStore leases = serverStore(300);
        DataSourceDatabase db = database(300);
        TaskRegistry holder = new TaskRegistry(leases, owner("a"), TTL, time, OwnerLiveness.neverProvable());
        HeldLease held = holder.tryAcquire(JOB).orElseThrow();
        LeaseRecord observed = leases.read(JOB).orElseThrow();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Future<String> write =
                threads.submit(() -> new JdbcGuard(db).inTransaction(held.fence(), "a slow job write", c -> {
                    inside.countDown();
                    try {
                        finish.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "committed";
                }));
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        // the row is locked by the holder's guarded write: a takeover of exactly the observed row waits, then gives up
        assertThat(leases.tryGrant(JOB, owner("b"), TTL, time.now(), Optional.of(observed)))
                .isEmpty();
        finish.countDown();
        assertThat(write.get(30, TimeUnit.SECONDS)).isEqualTo("committed");
        assertThat(leases.read(JOB).orElseThrow().owner()).contains(owner("a"));

        // a released row locked by someone else: the fast path gives up the same way
        assertThat(holder.release(held)).isTrue();
        try (Connection other = Pools.raw(pg)) {
            other.setAutoCommit(false);
            try (PreparedStatement ps =
                    other.prepareStatement("SELECT epoch FROM lease WHERE task_key = ? FOR UPDATE")) {
                ps.setString(1, JOB.asString());
                ps.executeQuery().close();
            }
            assertThat(leases.grantIfFree(JOB, owner("b"), TTL, time.now())).isEmpty();
            other.rollback();
        }
        assertThat(leases.grantIfFree(JOB, owner("b"), TTL, time.now())
                        .orElseThrow()
                        .epoch())
                .isEqualTo(2);
    }

    @Test
    void aNewKeyIsGrantedByOneConditionalInsertAndAKeyWithARowNeverByAnInsert() throws Exception {
        JdbcLeaseStore leases = serverStore(10_000);
        Instant now = time.now();
        LeaseRecord first = leases.grantIfNew(JOB, owner("a"), TTL, now).orElseThrow();
        assertThat(first.epoch()).isEqualTo(1);
        assertThat(first.heartbeat()).isEqualTo(1);
        assertThat(leases.read(JOB)).contains(first);
        assertThat(leases.grantIfNew(JOB, owner("b"), TTL, now)).as("held").isEmpty();
        assertThat(leases.release(first.fence(), now)).isTrue();
        assertThat(leases.grantIfNew(JOB, owner("b"), TTL, now))
                .as("free, but it has a row")
                .isEmpty();
        assertThat(leases.grantIfFree(JOB, owner("b"), TTL, now).orElseThrow().epoch())
                .isEqualTo(2);

        // eight owners inserting one new key at once: exactly one row, one winner, no error
        JobKey fresh = JobKey.of("rebuild-search-index");
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<LeaseRecord>>> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            OwnerId o = owner("racer-" + i);
            answers.add(threads.submit(() -> {
                go.await();
                return leases.grantIfNew(fresh, o, TTL, now);
            }));
        }
        go.countDown();
        int winners = 0;
        for (Future<Optional<LeaseRecord>> a : answers) {
            winners += a.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
        }
        assertThat(winners).isEqualTo(1);
        assertThat(leases.read(fresh).orElseThrow().epoch()).isEqualTo(1);
    }

    @Test
    void leasesAreListedInCodePointOrderWhateverTheDatabaseCollation() throws Exception {
        JdbcLeaseStore leases = serverStore(10_000);
        // a column collated like a typical server locale (ICU English): letters before upper case, punctuation ignored
        // first
        try (Connection c = Pools.raw(pg);
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE lease ALTER COLUMN task_key TYPE VARCHAR(300) COLLATE \"en-US-x-icu\"");
        }
        List<LeaseKey> keys = List.of(
                TaskKey.of("alice", "course_sync"),
                TaskKey.of("Zed", "backup"),
                JobKey.of("expire-idempotency-keys"),
                TaskKey.of("alice-b", "course_sync"),
                JobKey.of("1st-job"));
        for (LeaseKey k : keys) {
            assertThat(leases.tryGrant(k, owner("a"), TTL, time.now(), Optional.empty()))
                    .isPresent();
        }
        List<String> expected = keys.stream().map(LeaseKey::asString).sorted().toList();
        assertThat(leases.readAll()).extracting(r -> r.key().asString()).containsExactlyElementsOf(expected);
        // without the dialect's ordering this collation gives another order (so the check above can fail)
        List<String> collated = new ArrayList<>();
        try (Connection c = Pools.raw(pg);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT task_key FROM lease ORDER BY task_key")) {
            while (rs.next()) {
                collated.add(rs.getString(1));
            }
        }
        assertThat(collated).containsExactlyInAnyOrderElementsOf(expected).isNotEqualTo(expected);
    }
}
