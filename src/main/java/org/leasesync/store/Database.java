package org.leasesync.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.leasesync.store.h2.CleanCloseMarker;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.store.h2.DatabaseFileCheck;
import org.leasesync.store.h2.OpenRetries;
import org.leasesync.store.h2.StaleLockFile;
import org.leasesync.store.h2.UnfinishedCreation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local database: H2 (or PostgreSQL, {@link #open(String, String, String, String, int)}) through
 * a HikariCP pool, schema migrated by Flyway from the locations of its dialect
 * ({@link SqlDialect#clientMigrations()}). Runs its work through a
 * {@link DataSourceDatabase}; what a failure means for the user is {@link DatabaseFailures}'s.
 *
 * <p>A file database lives in the data directory ({@link DataDirectory}) and is opened in H2's
 * automatic mixed mode ({@code AUTO_SERVER=TRUE}), so several processes started on the same data
 * directory share one registry instead of failing with "database in use"; the file is checked
 * read-only first ({@link DatabaseFileCheck}), a lock file left behind by a host process that
 * provably died is taken over at once ({@link StaleLockFile}), and racing or unanswering holders
 * are retried as {@link OpenRetries} says.
 *
 * <p>Thread-safe. Every method blocks on the database. Failures are thrown once, here, as
 * {@link StoreException} with the JDBC cause kept and a message naming the file.
 */
public final class Database implements SqlDatabase, AutoCloseable {

    static {
        // H2's automatic-mixed-mode server (AUTO_SERVER) must only listen on loopback. Set before any
        // H2 class reads its system properties.
        if (System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
    }

    private static final Logger log = LoggerFactory.getLogger(Database.class);
    private static final AtomicLong MEM_COUNTER = new AtomicLong();
    private static final AtomicBoolean PRELOADED = new AtomicBoolean();
    /** Run once the pool is closed: a file database records its clean close ({@link CleanCloseMarker}). */
    private volatile Runnable afterClose = () -> {};
    /** The data directory of a file database; null for any other. */
    private volatile Path dataDirectory;

    private final HikariDataSource pool;
    private final DataSourceDatabase sql;
    private final DatabaseFailures failures;

    /**
     * How long work is retried when the shared file's host process went away (H2's automatic mixed
     * mode hands the file to another process; under load that takes seconds, and four quick attempts
     * were not enough: a short-lived {@code sync} then failed with "Database is already closed").
     */
    static final Duration SHARED_FILE_HANDOVER_RETRY = Duration.ofSeconds(15);

    private Database(HikariDataSource pool, SqlDialect dialect, String description, Duration brokenConnectionRetry) {
        this.pool = pool;
        this.failures = new DatabaseFailures(description);
        this.sql = new DataSourceDatabase(pool, dialect, description, brokenConnectionRetry, failures::statementFailed);
    }

    /** Opens the database in {@code dataDir} with {@link OpenRetries#DEFAULT_OPEN_TIMEOUT}. */
    public static Database openFile(Path dataDir) {
        return openFile(dataDir, OpenRetries.DEFAULT_OPEN_TIMEOUT);
    }

    /**
     * Opens (creating if needed) the database in {@code dataDir}; creates the directory with
     * owner-only permissions if it does not exist, and migrates the schema. An existing file is
     * first checked read-only ({@link DatabaseFileCheck}); a damaged one is reported and left
     * untouched, never repaired, replaced or re-created.
     *
     * @param openTimeout how long to wait for a process that holds the database but does not answer
     *     (stopped or hung) before giving up; it is asked twice, half of this each time
     * @throws StoreException naming the file and what to do, when it cannot be opened
     * @throws IllegalArgumentException if {@code openTimeout} is outside
     *     {@link OpenRetries#MIN_OPEN_TIMEOUT}..{@link OpenRetries#MAX_OPEN_TIMEOUT}
     */
    public static Database openFile(Path dataDir, Duration openTimeout) {
        return openFile(dataDir, openTimeout, UpgradeNotice.NONE);
    }

    /**
     * As {@link #openFile(Path, Duration)}, telling {@code notice} when the schema is upgraded.
     *
     * @throws NewerSchemaException when a newer leasesync last used the file; nothing was changed
     */
    public static Database openFile(Path dataDir, Duration openTimeout, UpgradeNotice notice) {
        OpenRetries.validateOpenTimeout(openTimeout);
        Path dir = DataDirectory.prepare(dataDir);
        // A first start killed before the schema was ready left nothing of the user's: set aside, created again.
        UnfinishedCreation.setAsideIfCreatorDied(dir, ThisProcess.LIVENESS);
        Database db = FileUpgrade.open(dir, openTimeout, ThisProcess.OWNER, ThisProcess.LIVENESS, notice);
        StaleLockFile.recordHost(dir, ThisProcess.OWNER);
        return db;
    }

    /**
     * Connects to the file of {@code dir} (created when missing) without migrating it, checking an
     * existing file first and retrying racing or unanswering holders ({@link OpenRetries}, whose
     * timeout covers only this connecting, never a migration). The pool records a clean close.
     *
     * @param check whether to check the file read-only first ({@link DatabaseFileCheck})
     */
    static Database connectFile(Path dir, Duration openTimeout, boolean check) {
        Path file = DataDirectory.databaseFile(dir);
        boolean creating = !Files.exists(file);
        // Flyway's classes are warmed up only for a new file: an existing one is usually current (SchemaVersion)
        preloadOpenClasses(creating);
        if (!creating && check) {
            // Throws, naming the file, when it is damaged. A file another process has open is that process's.
            DatabaseFileCheck.Result checked = DatabaseFileCheck.check(file);
            log.debug("{}: {}", file, checked);
        }
        // A lock file left by a host that provably died is taken over at once instead of after H2's 4-6 s wait.
        StaleLockFile.removeIfHostDead(dir, ThisProcess.LIVENESS);
        CleanCloseMarker.remove(file); // from here on H2 may write: only a clean close records it again
        String url = DataDirectory.fileUrl(dir);
        Database db = OpenRetries.open(
                file, openTimeout, () -> connect(url, "sa", "", file.toString(), 4, null), Database::close);
        db.dataDirectory = dir;
        db.afterClose = () -> {
            if (db.failures.fileSuspect()) {
                CleanCloseMarker.remove(file); // the next start checks the whole file again
            } else {
                CleanCloseMarker.writeIfAtRest(file); // lets the next start skip the row read
            }
        };
        return db;
    }

    /**
     * Loads the pool's (and, for a new file, Flyway's) classes on a background thread while this one checks the file:
     * in a new process that is about half of opening an existing database (Flyway's plugin registry
     * alone ~0.4 s cold), and the two overlap on a second core. Best effort; never fails the open.
     */
    private static void preloadOpenClasses(boolean flyway) {
        if (!PRELOADED.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        new HikariConfig().setPoolName("warm-up");
                        if (flyway) {
                            Flyway.configure().locations(SqlDialect.H2.clientMigrations());
                        }
                    } catch (RuntimeException | LinkageError e) {
                        log.debug("class warm-up before opening the database failed: {}", e.toString());
                    }
                },
                "db-open-warmup");
        t.setDaemon(true);
        t.start();
    }

    /** This process as a lock-file owner, and how other owners are judged; computed once (reads /proc). */
    private static final class ThisProcess {
        static final OwnerId OWNER = OwnerId.forCurrentProcess();
        static final OwnerLiveness LIVENESS = OwnerLiveness.processTable(OWNER.host());
    }

    /** A private in-memory database (for tests and the CLI's dry runs). */
    public static Database openInMemory() {
        String name = "leasesync-mem-" + MEM_COUNTER.incrementAndGet() + "-"
                + ProcessHandle.current().pid();
        return open("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "in-memory database " + name, 8);
    }

    /**
     * Opens an H2 JDBC URL (user {@code sa}, empty password) and migrates it.
     *
     * @param description how to name the database in messages (a file path)
     * @param poolSize the pool's maximum size, 1..64
     * @throws IllegalArgumentException for a PostgreSQL URL (it needs credentials: use
     *     {@link #open(String, String, String, String, int)}) or a pool size out of range
     * @throws StoreException naming the database, when it cannot be opened or migrated
     */
    public static Database open(String jdbcUrl, String description, int poolSize) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (SqlDialect.fromJdbcUrl(jdbcUrl) != SqlDialect.H2) {
            throw new IllegalArgumentException("a PostgreSQL database needs a user and a password: " + description);
        }
        return open(jdbcUrl, "sa", "", description, poolSize);
    }

    /**
     * Opens any JDBC URL (H2 or PostgreSQL) with the given credentials and migrates it with the
     * migrations of its dialect ({@link SqlDialect#clientMigrations()}: {@code db/migration-common}
     * and {@code db/migration} for H2 or {@code db/migration-postgresql} for PostgreSQL). On PostgreSQL every connection waits at most
     * {@link SqlDialect#LOCK_TIMEOUT_MILLIS} for a row lock, as H2 URLs here ask for.
     *
     * @param user the database user (H2's default is {@code sa})
     * @param password the password; empty for none
     * @param description how to name the database in messages (a file path or a host); never
     *     include the password in it
     * @param poolSize the pool's maximum size, 1..64
     * @throws IllegalArgumentException if the pool size is out of range
     * @throws StoreException naming the database, when it cannot be opened or migrated
     */
    public static Database open(String jdbcUrl, String user, String password, String description, int poolSize) {
        return open(jdbcUrl, user, password, description, poolSize, null);
    }

    /**
     * As {@link #open(String, String, String, String, int)}, with the pool's connections made by
     * {@code wrap} applied to the driver's data source (null: the driver's own) — for tests that
     * count what reaches the driver (commits per started trigger).
     */
    static Database open(
            String jdbcUrl,
            String user,
            String password,
            String description,
            int poolSize,
            java.util.function.UnaryOperator<javax.sql.DataSource> wrap) {
        Database db = connect(jdbcUrl, user, password, description, poolSize, wrap);
        try {
            SchemaUpgrade.migrateInPlace(
                    db.pool, db.dialect().clientMigrations(), SqlDialect.LATEST_CLIENT_MIGRATION, description);
        } catch (NewerSchemaException e) {
            db.close();
            throw e;
        } catch (RuntimeException e) {
            db.close();
            throw new StoreException(DatabaseFailures.openFailed(db.dialect(), description, e), e);
        }
        return db;
    }

    /** The pool, connected, without migrating. */
    private static Database connect(
            String jdbcUrl,
            String user,
            String password,
            String description,
            int poolSize,
            java.util.function.UnaryOperator<javax.sql.DataSource> wrap) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (poolSize < 1 || poolSize > 64) {
            throw new IllegalArgumentException("pool size must be 1..64, got " + poolSize);
        }
        SqlDialect dialect = SqlDialect.fromJdbcUrl(jdbcUrl);
        HikariConfig cfg = new HikariConfig();
        if (wrap == null) {
            cfg.setJdbcUrl(jdbcUrl);
        } else {
            cfg.setDataSource(wrap.apply(new com.zaxxer.hikari.util.DriverDataSource(
                    jdbcUrl, null, new java.util.Properties(), user, password)));
        }
        cfg.setUsername(user);
        cfg.setPassword(password);
        cfg.setMaximumPoolSize(poolSize);
        cfg.setMinimumIdle(1);
        cfg.setPoolName("leasesync-db");
        cfg.setConnectionTimeout(30_000);
        cfg.setInitializationFailTimeout(1);
        if (dialect.connectionInitSql() != null) {
            cfg.setConnectionInitSql(dialect.connectionInitSql());
        }
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(cfg);
        } catch (RuntimeException e) {
            throw new StoreException(DatabaseFailures.openFailed(dialect, description, e), e);
        }
        log.debug("opened {}", description);
        Duration retry = jdbcUrl.contains(";AUTO_SERVER=TRUE")
                ? SHARED_FILE_HANDOVER_RETRY
                : DataSourceDatabase.DEFAULT_BROKEN_CONNECTION_RETRY;
        return new Database(ds, dialect, description, retry);
    }

    /**
     * The data directory this database file lives in (as prepared at open), or empty for an
     * in-memory or server database, which no folder copy can duplicate.
     */
    public java.util.Optional<Path> dataDirectory() {
        return java.util.Optional.ofNullable(dataDirectory);
    }

    /**
     * Lets the database close while nobody uses it: from now on the pool keeps no connection idle, and
     * those idle now are closed (one in use is closed when it is given back). H2 closes a file database
     * when its last session ends — its lock file goes, and so does the watchdog thread that reads that
     * file every second while it is open — and the next connection opens the file again (about 10 ms).
     * For a process that looks at the database once a minute or less and would otherwise wake every
     * second for the watchdog alone: the app living in the tray. The pool stays open; nothing else
     * changes.
     *
     * <p>Thread-safe; never blocks: the pool closes connections on a thread of its own, so the file may
     * still be open when this returns ({@link org.leasesync.store.h2.ClosedFileStamp#await}).
     */
    public void closeIdleConnections() {
        pool.getHikariConfigMXBean().setMinimumIdle(0);
        com.zaxxer.hikari.HikariPoolMXBean p = pool.getHikariPoolMXBean();
        if (p != null) {
            p.softEvictConnections();
        }
    }

    /** The pooled data source (HikariCP) connections are taken from; closing it is this class's business. */
    public DataSource dataSource() {
        return pool;
    }

    /** The SQL dialect. */
    @Override
    public SqlDialect dialect() {
        return sql.dialect();
    }

    /** The file path (or other name) used in messages. */
    @Override
    public String description() {
        return sql.description();
    }

    /**
     * Runs {@code work} in one transaction: committed if it returns, rolled back if it throws; run
     * again when the connection broke before the commit (see {@link SqlDatabase#transaction}).
     *
     * @param what a short description of the operation, used in error messages
     * @throws StoreException wrapping an {@link SQLException}
     * @throws LeasesyncException thrown by {@code work}, unchanged, after the rollback
     */
    @Override
    public <T> T transaction(String what, SqlWork<T> work) {
        return sql.transaction(what, work);
    }

    /** {@link #transaction} also run again when its commit broke (see {@link SqlDatabase#idempotentTransaction}). */
    @Override
    public <T> T idempotentTransaction(String what, SqlWork<T> work) {
        return sql.idempotentTransaction(what, work);
    }

    /**
     * Runs {@code work} on a connection in auto-commit mode (reads, single statements); run again
     * when the connection broke (see {@link SqlDatabase#query}).
     */
    @Override
    public <T> T query(String what, SqlWork<T> work) {
        return sql.query(what, work);
    }

    /** {@link #query(String, SqlWork)} with the description built only for a message (see {@link SqlDatabase}). */
    @Override
    public <T> T query(java.util.function.Supplier<String> what, SqlWork<T> work) {
        return sql.query(what, work);
    }

    @Override
    public void close() {
        pool.close();
        afterClose.run();
    }
}
