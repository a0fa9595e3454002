package org.leasesync.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local database: H2 (or PostgreSQL, {@link #open(String, String, String, String, int)}) through
 * a HikariCP pool, schema migrated by Flyway from {@code classpath:db/migration} (H2) or
 * {@code classpath:db/migration-postgresql} (PostgreSQL). Runs its work through a
 * {@link DataSourceDatabase}, adding what H2 failures mean for the user (a full disk, a closed or
 * damaged file).
 *
 * <p>A file database lives in the data directory as {@code leasesync.mv.db} and is opened in H2's
 * automatic mixed mode ({@code AUTO_SERVER=TRUE}), so several processes started on the same data
 * directory share one registry instead of failing with "database in use". A lock file left behind by a
 * host process that provably died (killed, crashed) is taken over at once ({@link StaleLockFile}).
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
    private static final java.util.concurrent.atomic.AtomicBoolean PRELOADED = new java.util.concurrent.atomic.AtomicBoolean();
    /** The database file name inside the data directory (H2 adds {@code .mv.db}). */
    /** Run once the pool is closed: a file database records its clean close ({@link CleanCloseMarker}). */
    private volatile Runnable afterClose = () -> { };

    public static final String FILE_BASE_NAME = "leasesync";

    private final HikariDataSource pool;
    private final DataSourceDatabase sql;
    private final String description;
    /** Why H2 closed the database (a refused write), once that happened. */
    private volatile String closedBecause;
    /**
     * Set once a statement of this session found the file damaged or had a write refused: its close
     * then records no clean close, so the next start runs the full check ({@link CleanCloseMarker}).
     */
    private volatile boolean fileSuspect;

    /**
     * How long work is retried when the shared file's host process went away (H2's automatic mixed
     * mode hands the file to another process; under load that takes seconds, and four quick attempts
     * were not enough: a short-lived {@code sync} then failed with "Database is already closed").
     */
    static final Duration SHARED_FILE_HANDOVER_RETRY = Duration.ofSeconds(15);

    private Database(HikariDataSource pool, SqlDialect dialect, String description, Duration brokenConnectionRetry) {
        this.pool = pool;
        this.description = description;
        this.sql = new DataSourceDatabase(pool, dialect, description, brokenConnectionRetry, this::failure);
    }

    /** How long opening waits for a process that holds the database but does not answer, unless configured. */
    public static final Duration DEFAULT_OPEN_TIMEOUT = Duration.ofSeconds(40);

    /** Shortest and longest accepted open timeout. */
    public static final Duration MIN_OPEN_TIMEOUT = Duration.ofMillis(200);
    public static final Duration MAX_OPEN_TIMEOUT = Duration.ofMinutes(10);

    /** Opens the database in {@code dataDir} with the {@link #DEFAULT_OPEN_TIMEOUT}. */
    public static Database openFile(Path dataDir) {
        return openFile(dataDir, DEFAULT_OPEN_TIMEOUT);
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
     * @throws IllegalArgumentException if {@code openTimeout} is outside {@link #MIN_OPEN_TIMEOUT}..{@link #MAX_OPEN_TIMEOUT}
     */
    public static Database openFile(Path dataDir, Duration openTimeout) {
        validateOpenTimeout(openTimeout);
        Path dir = dataDir.toAbsolutePath().normalize();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new StoreException("the data directory " + dir + " is a file, not a directory; choose another one "
                    + "with --data-dir or LEASESYNC_DATA_DIR");
        }
        createPrivateDirectory(dir);
        Path file = dir.resolve(FILE_BASE_NAME + ".mv.db");
        // A first start killed before the schema was ready left nothing of the user's: set aside, created again.
        UnfinishedCreation.setAsideIfCreatorDied(dir, ThisProcess.LIVENESS);
        boolean creating = !Files.exists(file);
        if (creating) {
            UnfinishedCreation.begin(dir, ThisProcess.OWNER);
        }
        // Flyway's classes are warmed up only for a new file: an existing one is usually current (SchemaVersion)
        preloadOpenClasses(creating);
        if (!creating) {
            // Throws, naming the file, when it is damaged. A file another process has open is that process's.
            DatabaseFileCheck.Result checked = DatabaseFileCheck.check(file);
            log.debug("{}: {}", file, checked);
        }
        // A lock file left by a host that provably died is taken over at once instead of after H2's 4-6 s wait.
        StaleLockFile.removeIfHostDead(dir, ThisProcess.LIVENESS);
        CleanCloseMarker.remove(file);   // from here on H2 may write: only a clean close records it again
        Database db = openRetryingTransientLocks(fileUrl(dir), file, openTimeout);
        UnfinishedCreation.finish(dir);   // the schema is migrated: from here on the file may hold the user's data
        StaleLockFile.recordHost(dir, ThisProcess.OWNER);
        db.afterClose = () -> {
            if (db.fileSuspect) {   // also set whenever closedBecause is
                CleanCloseMarker.remove(file);   // the next start checks the whole file again
            } else {
                CleanCloseMarker.writeIfAtRest(file);   // lets the next start skip the row read
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
        Thread t = new Thread(() -> {
            try {
                new HikariConfig().setPoolName("warm-up");
                if (flyway) {
                    Flyway.configure().locations(SqlDialect.H2.clientMigrations());
                }
            } catch (RuntimeException | LinkageError e) {
                log.debug("class warm-up before opening the database failed: {}", e.toString());
            }
        }, "db-open-warmup");
        t.setDaemon(true);
        t.start();
    }

    /** This process as a lock-file owner, and how other owners are judged; computed once (reads /proc). */
    private static final class ThisProcess {
        static final OwnerId OWNER = OwnerId.forCurrentProcess();
        static final OwnerLiveness LIVENESS = OwnerLiveness.processTable(OWNER.host());
    }

    /**
     * The JDBC URL of the database file in {@code dataDir}, as {@link #openFile} opens it: H2's
     * automatic mixed mode, a 10 s lock timeout, and every commit written to the file at once
     * ({@code WRITE_DELAY=0}). The benchmarks open their contenders on this same URL. (H2 closes it
     * from its own shutdown hook, and refuses {@code DB_CLOSE_ON_EXIT=FALSE} with {@code AUTO_SERVER};
     * so a clean stop on SIGTERM happens before the JVM shuts down: {@code client.StopSignals}.)
     */
    public static String fileUrl(Path dataDir) {
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().normalize().resolve(FILE_BASE_NAME)
                + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;LOCK_TIMEOUT=10000;WRITE_DELAY=0";
    }

    /**
     * @return {@code timeout}
     * @throws IllegalArgumentException naming the value and the accepted range
     */
    public static Duration validateOpenTimeout(Duration timeout) {
        if (timeout == null || timeout.compareTo(MIN_OPEN_TIMEOUT) < 0 || timeout.compareTo(MAX_OPEN_TIMEOUT) > 0) {
            throw new IllegalArgumentException("the database open timeout must be between 200ms and 10m, got " + timeout);
        }
        return timeout;
    }

    /**
     * Several processes starting at once on one data directory race for H2's lock file (the first
     * becomes the automatic-mixed-mode server); the losers see "lock file recently modified" or a
     * refused connection to a server that is just starting or stopping. Those are retried for up to
     * {@link #OPEN_RETRY_SECONDS}; any other failure is reported at once. A holder that accepts the
     * connection but does not answer is asked twice, half of {@code openTimeout} each time.
     */
    private static Database openRetryingTransientLocks(String url, Path file, Duration openTimeout) {
        String description = file.toString();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(OPEN_RETRY_SECONDS);
        Duration perAttempt = openTimeout.dividedBy(2);
        java.util.Random random = new java.util.Random();
        int unanswered = 0;
        while (true) {
            try {
                Database db = openOnce(url, description, perAttempt);
                if (db != null) {
                    return db;
                }
                if (++unanswered >= 2 || System.nanoTime() > deadline) {
                    throw unanswered(file, openTimeout);
                }
            } catch (StoreException e) {
                if (!isTransientOpenFailure(e.getMessage(), description) || System.nanoTime() > deadline) {
                    throw e;
                }
                log.debug("database busy while opening, retrying: {}", e.getMessage());
                try {
                    Thread.sleep(100 + random.nextInt(400));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static StoreException unanswered(Path file, Duration openTimeout) {
        Optional<Long> pid = DatabaseHost.pid(file.resolveSibling(FILE_BASE_NAME + ".lock.db"));
        String who = pid.map(p -> "another leasesync process (pid " + p + ")").orElse("another leasesync process");
        String what = pid.map(p -> "Resume it (kill -CONT " + p + ") or end it (kill " + p + "), then try again.")
                .orElse("Find it with `ps -ef | grep leasesync`, resume it (kill -CONT) or end it, then try again.");
        return new StoreException("the local database " + file + " is held by " + who + " that has not answered for "
                + seconds(openTimeout) + " (stopped or hung?) — nothing was changed. " + what);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /**
     * One attempt. A process that holds the database (H2's automatic-mixed-mode server) but is
     * stopped or hung accepts the connection and never answers; H2 has no read timeout for that, so
     * the attempt runs on its own thread and is abandoned after {@code timeout}.
     *
     * @return the database, or null when the attempt got no answer in time
     */
    private static Database openOnce(String url, String description, Duration timeout) {
        java.util.concurrent.CompletableFuture<Database> attempt = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                attempt.complete(open(url, description, 4));
            } catch (Throwable e) {
                attempt.completeExceptionally(e);
            }
        }, "db-open");
        t.setDaemon(true);
        t.start();
        try {
            return attempt.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            attempt.thenAccept(Database::close);   // if it ever opens, close it
            return null;                            // no answer within the timeout
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new StoreException("cannot open the local database " + description + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while opening " + description, e);
        }
    }

    /**
     * Several processes starting and ending at once on one data directory race for H2's lock file
     * (the first becomes the automatic-mixed-mode server, and the role moves when it exits); the
     * others briefly see these failures. They are retried; anything else is reported at once.
     */
    private static boolean isTransientOpenFailure(String message, String description) {
        String m = message.toLowerCase(java.util.Locale.ROOT);
        return isHandoverMessage(message) || m.contains("connection refused") || m.contains("session closed")
                // another process is reading the file for its start-up check (DatabaseFileCheck) or opening it
                || m.contains("file is locked")
                || m.contains("concurrent update") || m.contains("another process was faster")
                // the process serving the file was killed while this one connected to it (chaos run, agent 1)
                || m.contains("connection reset")
                // an EOF while another process serves the file is a handover, not damage
                || m.contains("eofexception") && Files.exists(Path.of(description.replace(".mv.db", ".lock.db")));
    }

    /**
     * Whether an error message (of an {@link SQLException}, a {@link StoreException} or a run that
     * ended with one) says the shared file database was briefly unreachable because its host process
     * changed — the one list of such messages, used wherever the work may be tried again.
     */
    public static boolean isHandoverMessage(String message) {
        return SqlDialect.isH2HandoverMessage(message);
    }

    /** How long several processes may keep racing for the database before opening gives up. */
    static final long OPEN_RETRY_SECONDS = 90;

    /** Whether {@code dataDir} holds a local database file yet (read-only commands create none). */
    public static boolean existsIn(Path dataDir) {
        return Files.exists(dataDir.resolve(FILE_BASE_NAME + ".mv.db"));
    }

    /** A private in-memory database (for tests and the CLI's dry runs). */
    public static Database openInMemory() {
        String name = "leasesync-mem-" + MEM_COUNTER.incrementAndGet() + "-" + ProcessHandle.current().pid();
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
     * migrations of its dialect ({@link SqlDialect#clientMigrations()}: {@code db/migration} for H2,
     * {@code db/migration-postgresql} for PostgreSQL). On PostgreSQL every connection waits at most
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
    static Database open(String jdbcUrl, String user, String password, String description, int poolSize,
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
            cfg.setDataSource(wrap.apply(new com.zaxxer.hikari.util.DriverDataSource(jdbcUrl, null,
                    new java.util.Properties(), user, password)));
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
            throw new StoreException(openFailure(dialect, description, e), e);
        }
        try {
            if (!SchemaVersion.isCurrent(ds, SqlDialect.LATEST_CLIENT_MIGRATION)) {
                Flyway.configure().dataSource(ds).locations(dialect.clientMigrations())
                        .failOnMissingLocations(true).load().migrate();
            }
        } catch (RuntimeException e) {
            ds.close();
            throw new StoreException(openFailure(dialect, description, e), e);
        }
        log.debug("opened {}", description);
        Duration retry = jdbcUrl.contains(";AUTO_SERVER=TRUE")
                ? SHARED_FILE_HANDOVER_RETRY : DataSourceDatabase.DEFAULT_BROKEN_CONNECTION_RETRY;
        return new Database(ds, dialect, description, retry);
    }

    /** The pooled data source. */
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

    /**
     * The one place a failed statement becomes a {@link StoreException}. A write the disk refused
     * (full, quota, file too large) is said so plainly; H2 then closes the database, so later
     * failures say why it is closed.
     */
    private StoreException failure(String what, SQLException e) {
        Optional<String> writeFailure = StoreFailures.writeFailure(e);
        if (writeFailure.isPresent()) {
            fileSuspect = true;
            closedBecause = writeFailure.get();
            log.debug("could not {} in {}", what, description, e);
            return new StoreException("could not " + what + " in " + description + ": " + writeFailure.get()
                    + " — nothing of this step was saved; what was saved before is kept. Free some space and try "
                    + "again (restart leasesync if it keeps failing).", e);
        }
        String because = closedBecause;
        if (because != null && StoreFailures.isClosedDatabase(e)) {
            return new StoreException("could not " + what + " in " + description + ": the database was closed after "
                    + "an earlier write failed (" + because + "). Free some space, then start leasesync again.", e);
        }
        if (StoreFailures.isCorrupt(e)) {
            fileSuspect = true;
            return new StoreException("could not " + what + " in " + description + ": the file is damaged ("
                    + rootMessage(e) + "). Stop leasesync, then restore the file from a backup or move it aside "
                    + "(keep the copy) to start with an empty one.", e);
        }
        return new StoreException("could not " + what + " in " + description + ": " + e.getMessage(), e);
    }

    @Override
    public void close() {
        pool.close();
        afterClose.run();
    }

    /** Creates {@code dir} (and parents) with owner-only permissions where the file system supports it. */
    public static void createPrivateDirectory(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                return;
            }
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
        } catch (IOException e) {
            throw new StoreException("cannot create the data directory " + dir + ": " + e
                    + ". Choose another one with --data-dir or LEASESYNC_DATA_DIR.", e);
        }
    }

    private static String openFailure(SqlDialect dialect, String description, Throwable e) {
        if (dialect == SqlDialect.POSTGRESQL) {
            return "cannot open the PostgreSQL database " + description + ": " + rootMessage(e) + ". Check the URL,"
                    + " the user and password, and that the server is running and reachable.";
        }
        Optional<String> writeFailure = StoreFailures.writeFailure(e);
        if (writeFailure.isPresent()) {
            return "cannot open the local database " + description + ": " + writeFailure.get() + ". leasesync needs "
                    + "some free space to open it; nothing was changed. Free some space and try again.";
        }
        String reason = rootMessage(e);
        String hint;
        String lower = reason.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("readonly") || lower.contains("read-only") || lower.contains("read only")) {
            return "cannot open the local database " + description + ": the file or its directory is read-only. "
                    + "leasesync needs to write there; check the permissions, or choose another --data-dir.";
        }
        if (lower.contains("locked") || lower.contains("in use") || lower.contains("timeout")) {
            hint = "Another process holds the database and does not answer; stop other leasesync processes "
                    + "using this data directory and try again.";
        } else if (lower.contains("corrupt") || lower.contains("file is") || lower.contains("unsupported")
                || lower.contains("90030") || lower.contains("90048") || lower.contains("format")
                || lower.contains("eofexception")) {
            hint = "The file looks damaged or is not a leasesync database. It was left untouched; move it aside "
                    + "(keep a copy) to start with an empty one, or restore a backup.";
        } else if (lower.contains("permission") || lower.contains("access denied") || lower.contains("read-only")) {
            hint = "Check the permissions of the data directory.";
        } else {
            hint = "See the log for details.";
        }
        return "cannot open the local database " + description + ": " + reason + ". " + hint;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int nl = m.indexOf('\n');
        return (nl > 0 ? m.substring(0, nl) : m).trim();
    }
}
