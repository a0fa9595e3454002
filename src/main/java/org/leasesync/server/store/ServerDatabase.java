package org.leasesync.server.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.leasesync.store.SchemaUpgrade;
import org.leasesync.store.SqlDialect;
import org.leasesync.store.h2.UpgradeCopy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's own database and this instance's presence in it: a HikariCP pool over H2 (in
 * memory, unique to this instance, or a file under a data directory, one server per directory) or
 * over a PostgreSQL database that any number of instances share; the schema by Flyway from the
 * vendor's migrations ({@link Dialect#migrations()}). On PostgreSQL the instance also holds its
 * {@link InstanceLock} for as long as the database is open.
 *
 * <p>Thread-safe. {@link #close()} releases the instance lock, closes the pool and shuts H2 down
 * (an in-memory database is gone after it).
 */
public final class ServerDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerDatabase.class);
    /** Longest wait for a pooled connection before a request is answered 503. */
    private static final long POSTGRES_CONNECTION_TIMEOUT_MS = 2_000;
    /** Driver defaults a {@code --db} URL may override: connect timeout and socket read timeout, seconds. */
    private static final String CONNECT_TIMEOUT_S = "5";

    private static final String SOCKET_TIMEOUT_S = "30";
    /**
     * Session settings that make PostgreSQL notice a vanished instance within seconds (a host that
     * lost power or its network sends no FIN): TCP keepalive probes after 5 s idle, every 2 s, 3 of
     * them, and at most 10 s of unacknowledged data. Without them the server keeps the dead
     * instance's sessions for the kernel's defaults (over 2 hours idle, about 15 minutes with data
     * in flight) — and with them its instance lock (its claims stay "live", their keys
     * {@code in_progress}) and any row lock its last transaction held (every push and fenced pull
     * of that user+scope, on every instance, waits). Found by scale/cluster.sh; docs/scale-out.md.
     */
    static final String DEAD_PEER_OPTIONS = "-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 "
            + "-c tcp_keepalives_count=3 -c tcp_user_timeout=10000";

    private final HikariDataSource pool;
    private final Dialect dialect;
    private final String instanceId;
    private final String description;
    private final DataDirLock dataDirLock;
    private final InstanceLock instanceLock;
    private final Path dataDir;

    private ServerDatabase(
            HikariDataSource pool,
            Dialect dialect,
            String instanceId,
            String description,
            DataDirLock dataDirLock,
            InstanceLock instanceLock,
            Path dataDir) {
        this.pool = pool;
        this.dialect = dialect;
        this.instanceId = instanceId;
        this.description = description;
        this.dataDirLock = dataDirLock;
        this.instanceLock = instanceLock;
        this.dataDir = dataDir == null ? null : dataDir.toAbsolutePath();
    }

    /** H2 in memory ({@code dataDir == null}) or in {@code dataDir}, with a fresh instance id (tests). */
    public static ServerDatabase open(Path dataDir) {
        return open(
                dataDir == null ? ServerDatabaseConfig.inMemory() : new ServerDatabaseConfig.H2File(dataDir),
                ServerInstanceId.create());
    }

    /**
     * Opens (creating if needed) and migrates the database. Blocks while connecting and migrating.
     *
     * @param instanceId this server instance's id ({@link ServerInstanceId})
     * @throws IllegalStateException if it cannot be reached, opened (e.g. an H2 data dir locked by
     *     another server) or migrated; the message is one line and names the database, never a password
     * @throws org.leasesync.store.NewerSchemaException if a newer leasesync migrated it; nothing was changed
     * @throws org.leasesync.lease.StoreException if an H2 data dir has no room for the copy taken before an
     *     upgrade ({@link UpgradeCopy}), or an unfinished upgrade's copy cannot be put back
     * @throws UncheckedIOException if an H2 data dir cannot be created or made owner-only
     */
    public static ServerDatabase open(ServerDatabaseConfig cfg, String instanceId) {
        if (cfg instanceof ServerDatabaseConfig.Postgres p) {
            return openPostgres(p, instanceId);
        }
        return openH2(cfg instanceof ServerDatabaseConfig.H2File f ? f.dataDir() : null, instanceId);
    }

    private static ServerDatabase openH2(Path dataDir, String instanceId) {
        DataDirLock lock = dataDir == null ? null : DataDirLock.acquire(dataDir);
        try {
            String url = dataDir == null
                    ? "jdbc:h2:mem:leasesync-server-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"
                    : "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("leasesync-server")
                            + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
            Path file = dataDir == null ? null : dataDir.toAbsolutePath().resolve("leasesync-server.mv.db");
            UpgradeCopy copy = file == null ? null : UpgradeCopy.of(file);
            if (copy != null && copy.present()) {
                copy.restore(); // an upgrade cut short: this server holds the data dir, no process has the file open
            }
            HikariDataSource ds = h2Pool(url);
            SchemaUpgrade.Found found = SchemaUpgrade.read(ds, Dialect.LATEST_MIGRATION);
            try {
                SchemaUpgrade.refuseNewer(found, Dialect.LATEST_MIGRATION, "the server data dir " + dataDir);
            } catch (RuntimeException e) {
                ds.close();
                throw e;
            }
            if (!found.current()) {
                if (copy != null && !found.empty()) {
                    closeH2(ds);
                    copy.take();
                    ds = h2Pool(url);
                }
                migrate(ds, Dialect.H2, url, found);
                if (copy != null && !found.empty() && found.highest() < FIRST_WITHOUT_CLEAR_TOKENS) {
                    ds = rewritten(ds, url);
                }
                if (copy != null) {
                    copy.discard();
                }
            }
            if (dataDir != null) {
                ServerDataDir.tightenFiles(dataDir.toAbsolutePath());
            }
            log.info("server database ready: {}", url);
            return new ServerDatabase(ds, Dialect.H2, instanceId, url, lock, null, dataDir);
        } catch (RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            throw e;
        }
    }

    private static ServerDatabase openPostgres(ServerDatabaseConfig.Postgres cfg, String instanceId) {
        Properties driver = new Properties();
        driver.setProperty("connectTimeout", CONNECT_TIMEOUT_S);
        driver.setProperty("socketTimeout", SOCKET_TIMEOUT_S);
        driver.setProperty("tcpKeepAlive", "true");
        driver.setProperty("ApplicationName", "leasesync-server");
        driver.setProperty("options", DEAD_PEER_OPTIONS); // the pool's sessions and the instance lock's
        Properties withCredentials = new Properties();
        withCredentials.putAll(driver);
        withCredentials.setProperty("user", cfg.user());
        withCredentials.setProperty("password", cfg.password());
        InstanceLock instanceLock;
        try {
            // A connection of its own first: it checks the URL and credentials with one plain error,
            // and holds the instance lock for the instance's lifetime.
            instanceLock =
                    InstanceLock.acquire(() -> DriverManager.getConnection(cfg.jdbcUrl(), withCredentials), instanceId);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot connect to the server database " + cfg.describe() + ": " + rootMessage(e), e);
        }
        try {
            HikariConfig hc = new HikariConfig();
            hc.setJdbcUrl(cfg.jdbcUrl());
            hc.setUsername(cfg.user());
            hc.setPassword(cfg.password());
            hc.setDataSourceProperties(driver);
            hc.setMaximumPoolSize(cfg.poolSize());
            hc.setPoolName("sync-server-db");
            hc.setConnectionTimeout(POSTGRES_CONNECTION_TIMEOUT_MS);
            // A bounded wait for row locks (10 s, then 55P03 = 503 or contention): a job's fenced write
            // and a lease grant never wait for ever behind a frozen instance's open transaction.
            hc.setConnectionInitSql(SqlDialect.POSTGRESQL.connectionInitSql());
            HikariDataSource ds;
            try {
                ds = new HikariDataSource(hc);
            } catch (RuntimeException e) {
                throw new IllegalStateException(
                        "cannot open the server database " + cfg.describe() + ": " + rootMessage(e), e);
            }
            SchemaUpgrade.Found found;
            try {
                found = SchemaUpgrade.read(ds, Dialect.LATEST_MIGRATION);
                SchemaUpgrade.refuseNewer(found, Dialect.LATEST_MIGRATION, "the server database " + cfg.describe());
            } catch (RuntimeException e) {
                ds.close();
                throw e;
            }
            if (!found.current()) {
                // PostgreSQL's DDL is transactional: Flyway runs each migration in one transaction, so a cut-short
                // one is rolled back by the server, and its advisory lock makes a second instance wait.
                migrate(ds, Dialect.POSTGRESQL, cfg.describe(), found);
            }
            log.info("server database ready: {}", cfg.describe());
            return new ServerDatabase(ds, Dialect.POSTGRESQL, instanceId, cfg.describe(), null, instanceLock, null);
        } catch (RuntimeException e) {
            instanceLock.close();
            throw e;
        }
    }

    private static HikariDataSource h2Pool(String url) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername("sa");
        hc.setPassword("");
        hc.setMaximumPoolSize(8);
        hc.setPoolName("sync-server-db");
        hc.setConnectionTimeout(5_000);
        try {
            return new HikariDataSource(hc);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "cannot open the server database " + url + " (is another server " + "using this data dir?): "
                            + rootMessage(e),
                    e);
        }
    }

    /** The first schema that holds no bearer token in clear (V8 turned them into hashed sessions). */
    static final int FIRST_WITHOUT_CLEAR_TOKENS = 8;

    /**
     * Closes the file with {@code SHUTDOWN COMPACT} and opens it again: the migration that dropped the
     * clear tokens leaves their old pages in the file's free space, which H2's own compaction at close
     * (bounded to 200 ms) does not always rewrite on a loaded machine. A full compaction rewrites the
     * live data and truncates the rest, so no token of an older server stays readable in the file.
     */
    private static HikariDataSource rewritten(HikariDataSource ds, String url) {
        try (Connection c = ds.getConnection();
                java.sql.Statement st = c.createStatement()) {
            st.execute("SHUTDOWN COMPACT");
        } catch (SQLException e) {
            log.debug("compaction after the upgrade: {}", e.toString()); // the connection ends with the shutdown
        } finally {
            ds.close();
        }
        return h2Pool(url);
    }

    /** Closes an H2 file so that it can be copied: nobody else has it (this server holds the data dir). */
    private static void closeH2(HikariDataSource ds) {
        try (Connection c = ds.getConnection()) {
            Dialect.H2.shutdown(c);
        } catch (SQLException e) {
            log.debug("database shutdown before the upgrade copy: {}", e.toString());
        } finally {
            ds.close();
        }
    }

    /** Flyway, however long it takes; on PostgreSQL it serialises instances migrating at once with its own advisory lock. */
    private static void migrate(HikariDataSource ds, Dialect dialect, String description, SchemaUpgrade.Found found) {
        try {
            SchemaUpgrade.migrate(
                    ds, dialect.migrations(), found, Dialect.LATEST_MIGRATION, "the server database " + description);
        } catch (RuntimeException e) {
            ds.close();
            throw new IllegalStateException(
                    "cannot migrate the server database " + description + ": " + rootMessage(e), e);
        }
    }

    /** The innermost message of {@code e}, on one line. */
    public static String rootMessage(Throwable e) {
        Throwable t = e;
        for (int depth = 0; t.getCause() != null && t.getCause() != t && depth < 20; depth++) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        return m.replaceAll("\\s*\\R\\s*", " ").trim();
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The store's name for this vendor, for the task registry's lease store over this pool. */
    public SqlDialect sqlDialect() {
        return dialect == Dialect.H2 ? SqlDialect.H2 : SqlDialect.POSTGRESQL;
    }

    /** The pool itself, for the task registry's stores ({@code DataSourceDatabase}); closed by {@link #close()}. */
    public DataSource dataSource() {
        return pool;
    }

    /** This server instance's id. */
    public String instanceId() {
        return instanceId;
    }

    /** E.g. {@code PostgreSQL jdbc:postgresql://db:5432/sync as leasesync}; never a password. */
    public String description() {
        return description;
    }

    /** A pooled connection; waits at most the pool's connection timeout. */
    public Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /**
     * Whether the database answers now (a pooled connection that passes a validity check within
     * 2 s). Never throws.
     */
    public boolean answers() {
        try (Connection c = pool.getConnection()) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Publishes the pool's own HikariCP meters ({@code hikaricp.connections.active}, {@code .idle},
     * {@code .pending}, {@code .timeout}, ..., tag {@code pool}) in {@code registry}; they are
     * removed when the pool closes. Call at most once.
     *
     * @throws IllegalStateException if called twice
     */
    public void bindPoolMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
        pool.setMetricRegistry(registry);
    }

    /**
     * Housekeeping: on PostgreSQL, re-takes the instance lock if its connection broke; in a data
     * dir, makes files H2 created since the last call owner-only ({@link ServerDataDir}). Never throws.
     *
     * @return true if there was something to do (the lock taken again, or a file tightened): look again soon
     */
    public boolean maintain() {
        boolean work = false;
        if (instanceLock != null) {
            work = !instanceLock.maintain();
        }
        if (dataDir != null) {
            work |= ServerDataDir.tightenFiles(dataDir);
        }
        return work;
    }

    @Override
    public void close() {
        try {
            if (dialect == Dialect.H2) {
                try (Connection c = pool.getConnection()) {
                    dialect.shutdown(c);
                }
            }
        } catch (SQLException e) {
            log.debug("database shutdown: {}", e.toString());
        } finally {
            pool.close();
            if (instanceLock != null) {
                instanceLock.close();
            }
            if (dataDirLock != null) {
                dataDirLock.close();
            }
        }
    }
}
