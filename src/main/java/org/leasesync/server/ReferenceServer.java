package org.leasesync.server;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.leasesync.server.demo.DemoSeeder;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.faults.FaultSwitches;
import org.leasesync.server.http.AdminHandlers;
import org.leasesync.server.http.ApiRouter;
import org.leasesync.server.http.Authenticator;
import org.leasesync.server.http.HealthHandler;
import org.leasesync.server.http.PullHandler;
import org.leasesync.server.http.PushHandler;
import org.leasesync.server.http.PushService;
import org.leasesync.server.http.PushStatusHandler;
import org.leasesync.server.http.ServerMetrics;
import org.leasesync.server.http.SessionHandlers;
import org.leasesync.server.jobs.JobScheduler;
import org.leasesync.server.store.AccountStore;
import org.leasesync.server.store.AuditLog;
import org.leasesync.server.store.ClaimStore;
import org.leasesync.server.store.Dialect;
import org.leasesync.server.store.FencingStore;
import org.leasesync.server.store.IdempotencyStore;
import org.leasesync.server.store.RecordStore;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.ServerInstanceId;
import org.leasesync.server.store.ServerStats;
import org.leasesync.server.store.SessionStore;
import org.leasesync.server.store.SignInLimits;
import org.leasesync.server.store.StatsStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference implementation of the leasesync sync protocol v1 ({@code docs/protocol.md}),
 * on the JDK's {@link HttpServer}, with its own database: H2 (in memory or a file; one server per
 * database) or PostgreSQL, shared by any number of instances, every one of which keeps every
 * protocol promise for the whole cluster (docs/reference-server.md, "Several instances").
 *
 * <p>Requests are served concurrently on a fixed pool of threads named {@code sync-server-N}; a
 * thread named {@code sync-server-housekeeping} retries failed claim releases, keeps the
 * instance lock (PostgreSQL) and writes the statistics counted in memory to the database every
 * second (on H2, once a second after requests, backing off to once a minute without them); the server's periodic jobs run on {@code sync-server-jobs} (and
 * {@code sync-server-jobs-heartbeat}) through the task registry ({@link JobScheduler}).
 * {@code GET /metrics} serves this instance's {@link ServerMetrics}. With {@link ServerConfig#tls()} it
 * listens with HTTPS. All methods are thread-safe. {@link #start} blocks while the
 * database is opened, migrated and seeded; {@link #tokenFor}, {@link #adminToken}, {@link #stats} and
 * {@link #resetStats} block on the database; {@link #close} blocks until the HTTP server, its
 * threads and the database are shut down (a few seconds at most).
 */
public final class ReferenceServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReferenceServer.class);
    private static final int THREADS = 16;
    /** How often the housekeeping runs while there is work, and always on PostgreSQL. */
    private static final Duration HOUSEKEEPING = Duration.ofSeconds(1);
    /** The longest an H2 server's housekeeping waits while no request comes ({@link HousekeepingTicks}). */
    private static final Duration HOUSEKEEPING_IDLE = Duration.ofSeconds(60);

    private final HttpServer http;
    private final ExecutorService executor;
    private final ScheduledExecutorService housekeeping;
    private final ServerDatabase db;
    private final AccountStore accounts;
    private final SessionStore sessions;
    private final DemoSeeder seeder;
    private final List<String> seeded;
    private final boolean https;
    private final ProgrammaticSessions programmatic;
    private final FaultSwitches faults;
    private final StatsStore stats;
    private final ClaimStore claims;
    private final ApiRouter router;
    private final ServerMetrics metrics;
    private final JobScheduler jobs;
    private final AtomicInteger closed = new AtomicInteger();

    private ReferenceServer(
            HttpServer http,
            ExecutorService executor,
            ScheduledExecutorService housekeeping,
            ServerDatabase db,
            AccountStore accounts,
            SessionStore sessions,
            DemoSeeder seeder,
            List<String> seeded,
            FaultSwitches faults,
            StatsStore stats,
            ClaimStore claims,
            ApiRouter router,
            ServerMetrics metrics,
            JobScheduler jobs) {
        this.http = http;
        this.executor = executor;
        this.housekeeping = housekeeping;
        this.db = db;
        this.accounts = accounts;
        this.sessions = sessions;
        this.programmatic = new ProgrammaticSessions(accounts, sessions);
        this.seeder = seeder;
        this.seeded = List.copyOf(seeded);
        this.https = http instanceof HttpsServer;
        this.faults = faults;
        this.stats = stats;
        this.claims = claims;
        this.router = router;
        this.metrics = metrics;
        this.jobs = jobs;
    }

    /**
     * Opens the database, seeds it, switches on the configured faults and starts serving.
     *
     * @throws UncheckedIOException if the address cannot be bound (e.g. port in use)
     * @throws IllegalStateException if the database cannot be reached, opened, migrated or seeded
     *     (e.g. a file-backed database locked by another process, a PostgreSQL that refuses the
     *     connection); the message is one line; nothing is left running
     */
    public static ReferenceServer start(ServerConfig cfg) {
        ServerDatabase db = ServerDatabase.open(cfg.database(), ServerInstanceId.create());
        ExecutorService executor = null;
        ScheduledExecutorService housekeeping = null;
        ServerMetrics metrics = null;
        JobScheduler jobs = null;
        try {
            metrics = new ServerMetrics(db.instanceId(), db.dialect().name().toLowerCase(java.util.Locale.ROOT));
            db.bindPoolMetrics(metrics.registry());
            AccountStore accounts = new AccountStore(db, cfg.clock());
            SessionStore sessions = new SessionStore(db, cfg.clock(), cfg.sessionIdle());
            RecordStore records = new RecordStore(db);
            DemoSeeder seeder = new DemoSeeder(db, accounts, records, cfg.clock());
            List<String> seeded = cfg.seed() == Seed.DEMO ? seeder.seed() : List.of();
            records.databaseId();
            ClaimStore claims = new ClaimStore(db, cfg.clock());
            StatsStore stats = new StatsStore(db, cfg.audit());
            if (db.dialect() == Dialect.H2) {
                // The only server on this database: claims left in it are stale, and the
                // statistics start at zero with the server, as they always have on H2.
                claims.deleteAll();
                stats.forgetEarlierInstances();
                stats.reset();
            }
            stats.register(cfg.clock().millis());
            FaultSwitches faults = new FaultSwitches();
            cfg.faults().forEach(faults::apply);
            IdempotencyStore keys = new IdempotencyStore(db, cfg.keyRetention());
            FencingStore fencing = new FencingStore();
            AuditLog audits = new AuditLog(db, cfg.audit());
            PushService service = new PushService(db, records, fencing, keys, cfg.clock());
            jobs = ServerJobs.create(cfg, db, metrics);
            ApiRouter router = new ApiRouter(
                    new Authenticator(sessions),
                    faults,
                    stats,
                    audits,
                    cfg.clock(),
                    metrics,
                    new HealthHandler(db),
                    new PullHandler(db, records, fencing, cfg.clock()),
                    new PushHandler(service, keys, claims, faults, stats, metrics, cfg.clock()),
                    new PushStatusHandler(claims, keys, cfg.clock()),
                    new AdminHandlers(stats, faults, audits, jobs),
                    new SessionHandlers(accounts, sessions, new SignInLimits(db, cfg.clock())));
            HttpServer http = ServerListener.bind(cfg);
            executor = ServerListener.workers(THREADS);
            housekeeping = ServerListener.housekeeping();
            // PostgreSQL: other instances read the statistics and judge this one's claims by its lock,
            // so every second. H2: nothing else reads them, and only a request makes work.
            HousekeepingTicks ticks = new HousekeepingTicks(
                    housekeeping,
                    () -> claims.retryPendingReleases() | db.maintain() | stats.flushQuietly(),
                    HOUSEKEEPING,
                    db.dialect() == Dialect.H2 ? HOUSEKEEPING_IDLE : HOUSEKEEPING);
            stats.onFirstCount(ticks::wake);
            ticks.start();
            http.setExecutor(executor);
            http.createContext("/", router);
            http.start();
            jobs.start();
            ReferenceServer server = new ReferenceServer(
                    http,
                    executor,
                    housekeeping,
                    db,
                    accounts,
                    sessions,
                    seeder,
                    seeded,
                    faults,
                    stats,
                    claims,
                    router,
                    metrics,
                    jobs);
            log.info(
                    "sync server instance {} listening on {} ({}){}",
                    db.instanceId(),
                    server.baseUrl(),
                    db.description(),
                    cfg.audit() ? " (audit log on)" : "");
            return server;
        } catch (IOException e) {
            cleanUp(executor, housekeeping, jobs, db, metrics);
            throw new UncheckedIOException(
                    "cannot bind " + cfg.bindAddress() + ":" + cfg.port() + ": " + e.getMessage(), e);
        } catch (SQLException e) {
            cleanUp(executor, housekeeping, jobs, db, metrics);
            throw new IllegalStateException("cannot prepare the server database: " + ServerDatabase.rootMessage(e), e);

        } catch (RuntimeException e) {
            cleanUp(executor, housekeeping, jobs, db, metrics);
            throw e;
        }
    }

    private static void cleanUp(
            ExecutorService executor,
            ScheduledExecutorService housekeeping,
            JobScheduler jobs,
            ServerDatabase db,
            ServerMetrics metrics) {
        if (jobs != null) {
            jobs.close();
        }
        if (executor != null) {
            executor.shutdownNow();
        }
        if (housekeeping != null) {
            housekeeping.shutdownNow();
        }
        db.close();
        if (metrics != null) {
            metrics.close();
        }
    }

    /** E.g. {@code http://127.0.0.1:8787}, {@code https://…} with TLS; no trailing slash. */
    public String baseUrl() {
        InetSocketAddress a = http.getAddress();
        String host = a.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return (https ? "https://" : "http://") + host + ":" + a.getPort();
    }

    /** The bound port (the chosen one when configured with port 0). */
    public int port() {
        return http.getAddress().getPort();
    }

    /**
     * A session token of {@code user}, for tests and the embedded server (the programmatic way in,
     * beside signing in with a password): creates the account if it does not exist yet (without a
     * password and without records) and a session for it. Answers the same token on every call of
     * this instance while that session is live; a new one after it ended (revoked, expired). Blocks
     * on the database.
     *
     * @throws IllegalArgumentException if {@code user} does not match {@code [A-Za-z0-9._-]{1,64}}
     * @throws IllegalStateException if the database fails
     */
    public synchronized String tokenFor(String user) {
        return programmatic.token(user, false);
    }

    /**
     * The passwords of the demo accounts this start seeded ({@code serve --seed demo} prints them):
     * gives each a new random password the first time it is called and answers them in order
     * (alice, bob, admin); empty for accounts that existed before this start, and on later calls.
     * Separate from the seeding because each Argon2id hash takes a noticeable time that embedded
     * servers and tests, which use {@link #tokenFor}, need not spend. Blocks on the database.
     *
     * @throws IllegalStateException if the database fails or the thread is interrupted
     */
    public synchronized Map<String, String> takeDemoPasswords() {
        try {
            Map<String, String> given = seeder.givePasswords(seeded);
            return given;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot give the demo accounts their passwords: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while hashing the demo passwords", e);
        }
    }

    /**
     * This instance's id, {@code HOST/PID/RANDOM}: unique per server instance, also in one process.
     * Shown by {@code GET /health} and the start-up log line.
     */
    public String instanceId() {
        return db.instanceId();
    }

    /**
     * A session token of the admin account {@code admin}, for tests and embedding: creates that
     * account (with the admin flag, without a password) if it does not exist, and a session for it,
     * answered again while it is live, as {@link #tokenFor}. Valid on {@code /v1/admin/...} and on
     * {@code admin}'s own user paths. Blocks on the database.
     *
     * @throws IllegalStateException if the database fails, or an account {@code admin} exists
     *     without the admin flag
     */
    public synchronized String adminToken() {
        return programmatic.token(DemoSeeder.ADMIN, true);
    }

    /** The live fault switches; changes take effect for following requests. */
    public FaultSwitches faults() {
        return faults;
    }

    /**
     * The statistics of every instance sharing this server's database, read from it after this
     * instance wrote what it counted; other instances' counts are there up to their last write,
     * at most about a second old. Blocks on the database.
     *
     * @throws IllegalStateException if the database fails
     */
    public ServerStats stats() {
        try {
            return stats.snapshot();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the server statistics: " + e.getMessage(), e);
        }
    }

    /**
     * Writes this instance's statistics counted in memory to the database now, as the housekeeping
     * thread does every second (tests: so that another instance's {@link #stats()} includes them).
     * Blocks on the database.
     *
     * @throws IllegalStateException if the database fails
     */
    void flushStats() {
        try {
            stats.flush();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot write the server statistics: " + e.getMessage(), e);
        }
    }

    /**
     * Sets every statistic to zero and forgets run intervals, for every instance sharing this
     * server's database. Blocks on the database.
     *
     * @throws IllegalStateException if the database fails
     */
    public void resetStats() {
        try {
            stats.reset();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reset the server statistics: " + e.getMessage(), e);
        }
    }

    /** The accounts of this server's database (tests in this package). */
    AccountStore accounts() {
        return accounts;
    }

    /** This server's database (tests in this package). */
    ServerDatabase database() {
        return db;
    }

    /** The users seeded by {@link Seed#DEMO}, in order. */
    public static List<String> demoUsers() {
        return DemoSeeder.USERS;
    }

    /**
     * Stops accepting requests (new ones get 503 or a refused connection), interrupts requests
     * still executing (their transactions roll back unless already committed), stops the jobs (a
     * running one ends after its current batch, its checkpoint kept), deletes this instance's
     * idempotency-key claims, writes its last statistics, releases its instance lock, closes the
     * database and its metrics. Idempotent.
     */
    @Override
    public void close() {
        if (closed.getAndIncrement() > 0) {
            return;
        }
        router.closing();
        http.stop(0);
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("sync server threads did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        jobs.close();
        housekeeping.shutdownNow();
        stats.flushQuietly();
        claims.releaseAllOwn();
        db.close();
        metrics.close();
        log.info("sync server on port {} stopped", http.getAddress().getPort());
    }
}
