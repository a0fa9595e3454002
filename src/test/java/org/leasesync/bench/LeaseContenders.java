package org.leasesync.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import org.leasesync.registry.HeldLease;
import org.leasesync.registry.OwnerId;
import org.leasesync.registry.OwnerLiveness;
import org.leasesync.registry.TaskKey;
import org.leasesync.registry.TaskRegistry;
import org.leasesync.registry.TimeSource;
import org.leasesync.store.Database;
import org.leasesync.store.JdbcLeaseStore;

/** The three lease implementations item 1 compares, all on one {@link Database}'s pool. */
final class LeaseContenders {

    /** Lease TTL of every contender: long enough that nothing expires during a measurement. */
    static final Duration TTL = Duration.ofMinutes(5);

    private LeaseContenders() {
    }

    /** One lease implementation. Thread-safe; every method blocks on the database. */
    interface Contender {
        String name();

        /** Tries to take key number {@code key}; returns a handle, or null if it is held (contention). */
        Object tryLock(int key) throws Exception;

        void unlock(Object handle) throws Exception;
    }

    /** leasesync's registry: epoch increment, owner check, fencing. */
    static Contender leasesync(Database db) {
        TaskRegistry registry = new TaskRegistry(new JdbcLeaseStore(db),
                new OwnerId("bench", ProcessHandle.current().pid(), 1, "be9c4"), TTL, TimeSource.system(),
                OwnerLiveness.neverProvable());
        return new Contender() {
            private final TaskKey[] keys = new TaskKey[LeaseBench.MAX_KEYS];

            @Override
            public String name() {
                return "leasesync";
            }

            @Override
            public Object tryLock(int key) {
                TaskKey k = keys[key];
                if (k == null) {
                    k = TaskKey.of("k" + key, "backup");
                    keys[key] = k;
                }
                return registry.tryAcquire(k).orElse(null);
            }

            @Override
            public void unlock(Object handle) {
                if (!registry.release((HeldLease) handle)) {
                    throw new IllegalStateException("release refused: " + handle);
                }
            }
        };
    }

    /** ShedLock's plain JDBC provider (no fencing token). */
    static Contender shedlock(Database db) throws SQLException {
        exec(db.dataSource(), "CREATE TABLE IF NOT EXISTS shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL,"
                + " locked_at TIMESTAMP(3) NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        JdbcLockProvider provider = new JdbcLockProvider(db.dataSource());
        return new Contender() {
            @Override
            public String name() {
                return "shedlock";
            }

            @Override
            public Object tryLock(int key) {
                Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), "k" + key, TTL, Duration.ZERO));
                return lock.orElse(null);
            }

            @Override
            public void unlock(Object handle) {
                ((SimpleLock) handle).unlock();
            }
        };
    }

    /** The least a database lease can do: one conditional UPDATE to acquire, one to release. */
    static Contender raw(Database db) throws SQLException {
        DataSource ds = db.dataSource();
        exec(ds, "CREATE TABLE IF NOT EXISTS raw_lease(name VARCHAR(64) NOT NULL PRIMARY KEY, owner_id VARCHAR(64),"
                + " until_ms BIGINT NOT NULL)");
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("MERGE INTO raw_lease(name, owner_id, until_ms) KEY(name) VALUES (?, NULL, 0)")) {
            for (int i = 0; i < LeaseBench.MAX_KEYS; i++) {
                ps.setString(1, "k" + i);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        AtomicLong tokens = new AtomicLong();
        record Held(String name, String owner) { }
        return new Contender() {
            @Override
            public String name() {
                return "raw";
            }

            @Override
            public Object tryLock(int key) throws SQLException {
                String owner = "o" + tokens.incrementAndGet();
                long now = System.currentTimeMillis();
                try (Connection c = ds.getConnection();
                     PreparedStatement ps = c.prepareStatement("UPDATE raw_lease SET owner_id = ?, until_ms = ?"
                             + " WHERE name = ? AND (owner_id IS NULL OR until_ms <= ?)")) {
                    ps.setString(1, owner);
                    ps.setLong(2, now + TTL.toMillis());
                    ps.setString(3, "k" + key);
                    ps.setLong(4, now);
                    return ps.executeUpdate() == 1 ? new Held("k" + key, owner) : null;
                }
            }

            @Override
            public void unlock(Object handle) throws SQLException {
                Held h = (Held) handle;
                try (Connection c = ds.getConnection();
                     PreparedStatement ps = c.prepareStatement("UPDATE raw_lease SET owner_id = NULL WHERE name = ? AND owner_id = ?")) {
                    ps.setString(1, h.name());
                    ps.setString(2, h.owner());
                    if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("release refused: " + h);
                    }
                }
            }
        };
    }

    private static void exec(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
