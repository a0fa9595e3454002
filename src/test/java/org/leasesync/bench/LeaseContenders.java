package org.leasesync.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.store.DataSourceDatabase;
import org.leasesync.store.JdbcLeaseStore;
import org.leasesync.store.SqlDialect;

/**
 * The three lease implementations the lease benchmark compares. Each is built on a database and
 * pool of its own ({@link BenchDatabases.Db}); none shares anything with another.
 */
final class LeaseContenders {

    /** Lease TTL of every contender: long enough that nothing expires during a measurement. */
    static final Duration TTL = Duration.ofMinutes(5);

    static final String LEASESYNC = "leasesync";
    static final String SHEDLOCK = "shedlock";
    static final String RAW = "raw";

    private LeaseContenders() {}

    /** A lease implementation on its own database: instances of it share that database and pool. */
    interface Contender extends AutoCloseable {
        String name();

        /**
         * A new instance: for leasesync a registry with an owner id of its own, for ShedLock a
         * provider of its own, for raw SQL an owner name of its own — as a separate process would
         * have. Threads may share one instance.
         */
        Instance newInstance() throws Exception;

        /** CPU time the database server has spent serving this contender's pool (0 for H2, which runs in the JVM). */
        default long databaseCpuNanos() {
            return 0;
        }

        @Override
        void close();
    }

    /** One instance. Thread-safe; every method blocks on the database. */
    interface Instance {
        /** Tries to take key number {@code key}; returns a handle, or null if it is held (contention). */
        Object tryLock(int key) throws Exception;

        void unlock(Object handle) throws Exception;
    }

    static Contender create(String name, BenchDatabases.Db db, int keys) throws Exception {
        return switch (name) {
            case LEASESYNC -> leasesync(db);
            case SHEDLOCK -> shedlock(db);
            case RAW -> raw(db, keys);
            default -> throw new IllegalArgumentException("unknown contender " + name);
        };
    }

    /**
     * leasesync's {@link TaskRegistry} over {@link JdbcLeaseStore} on a {@link DataSourceDatabase}
     * (the way a server runs it over its own pool): epoch +1 per grant, owner and epoch checked on
     * release, a fencing token in every grant.
     */
    static Contender leasesync(BenchDatabases.Db db) throws SQLException {
        exec(db.dataSource(), JdbcLeaseStore.leaseTableSql(db.dialect()));
        JdbcLeaseStore store =
                new JdbcLeaseStore(new DataSourceDatabase(db.dataSource(), db.dialect(), "lease bench " + db.name()));
        TaskKey[] keys = new TaskKey[LeaseBench.MAX_KEYS];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = TaskKey.of("k" + k, "backup");
        }
        return new Contender() {
            @Override
            public String name() {
                return LEASESYNC;
            }

            @Override
            public long databaseCpuNanos() {
                return db.serverCpuNanos();
            }

            @Override
            public Instance newInstance() {
                TaskRegistry registry = new TaskRegistry(
                        store, OwnerId.forCurrentProcess(), TTL, TimeSource.system(), OwnerLiveness.neverProvable());
                return new Instance() {
                    @Override
                    public Object tryLock(int key) {
                        return registry.tryAcquire(keys[key]).orElse(null);
                    }

                    @Override
                    public void unlock(Object handle) {
                        if (!registry.release((HeldLease) handle)) {
                            throw new IllegalStateException("release refused: " + handle);
                        }
                    }
                };
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }

    /** ShedLock's plain JDBC provider ({@code lockAtMostFor} = TTL; no fencing token). */
    static Contender shedlock(BenchDatabases.Db db) throws SQLException {
        String timestamp = db.dialect() == SqlDialect.POSTGRESQL ? "TIMESTAMP" : "TIMESTAMP(3)";
        exec(
                db.dataSource(),
                "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until " + timestamp + " NOT NULL,"
                        + " locked_at " + timestamp
                        + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        String[] names = new String[LeaseBench.MAX_KEYS];
        for (int k = 0; k < names.length; k++) {
            names[k] = "k" + k;
        }
        return new Contender() {
            @Override
            public String name() {
                return SHEDLOCK;
            }

            @Override
            public long databaseCpuNanos() {
                return db.serverCpuNanos();
            }

            @Override
            public Instance newInstance() {
                JdbcLockProvider provider = new JdbcLockProvider(db.dataSource());
                return new Instance() {
                    @Override
                    public Object tryLock(int key) {
                        // ShedLock's own clock (millisecond precision), as its executors do: with a
                        // finer createdAt its unlock time can lie past the next lock's "now", and a
                        // key could not be locked again within the millisecond it was released
                        Optional<SimpleLock> lock = provider.lock(
                                new LockConfiguration(ClockProvider.now(), names[key], TTL, Duration.ZERO));
                        return lock.orElse(null);
                    }

                    @Override
                    public void unlock(Object handle) {
                        ((SimpleLock) handle).unlock();
                    }
                };
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }

    /** The least a database lease can do: one conditional UPDATE to acquire, one to release. */
    static Contender raw(BenchDatabases.Db db, int keys) throws SQLException {
        DataSource ds = db.dataSource();
        exec(
                ds,
                "CREATE TABLE raw_lease(name VARCHAR(64) NOT NULL PRIMARY KEY, owner_id VARCHAR(64),"
                        + " until_ms BIGINT NOT NULL)");
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO raw_lease(name, owner_id, until_ms) VALUES (?, NULL, 0)")) {
            for (int i = 0; i < keys; i++) {
                ps.setString(1, "k" + i);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        String[] names = new String[LeaseBench.MAX_KEYS];
        for (int k = 0; k < names.length; k++) {
            names[k] = "k" + k;
        }
        AtomicLong instances = new AtomicLong();
        record Held(String name, String owner) {}
        return new Contender() {
            @Override
            public String name() {
                return RAW;
            }

            @Override
            public long databaseCpuNanos() {
                return db.serverCpuNanos();
            }

            @Override
            public Instance newInstance() {
                String instance = "o" + instances.incrementAndGet() + "-";
                AtomicLong tokens = new AtomicLong();
                return new Instance() {
                    @Override
                    public Object tryLock(int key) throws SQLException {
                        String owner = instance + tokens.incrementAndGet();
                        long now = System.currentTimeMillis();
                        try (Connection c = ds.getConnection();
                                PreparedStatement ps =
                                        c.prepareStatement("UPDATE raw_lease SET owner_id = ?, until_ms = ?"
                                                + " WHERE name = ? AND (owner_id IS NULL OR until_ms <= ?)")) {
                            ps.setString(1, owner);
                            ps.setLong(2, now + TTL.toMillis());
                            ps.setString(3, names[key]);
                            ps.setLong(4, now);
                            return ps.executeUpdate() == 1 ? new Held(names[key], owner) : null;
                        }
                    }

                    @Override
                    public void unlock(Object handle) throws SQLException {
                        Held h = (Held) handle;
                        try (Connection c = ds.getConnection();
                                PreparedStatement ps = c.prepareStatement(
                                        "UPDATE raw_lease SET owner_id = NULL WHERE name = ? AND owner_id = ?")) {
                            ps.setString(1, h.name());
                            ps.setString(2, h.owner());
                            if (ps.executeUpdate() != 1) {
                                throw new IllegalStateException("release refused: " + h);
                            }
                        }
                    }
                };
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }

    static void exec(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
