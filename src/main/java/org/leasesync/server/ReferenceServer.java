package org.leasesync.server;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference implementation of the leasesync sync protocol v1 ({@code docs/protocol.md}),
 * on the JDK's {@link HttpServer}, with its own H2 database.
 *
 * <p>Requests are served concurrently on a fixed pool of threads named {@code sync-server-N}.
 * All methods are thread-safe. {@link #start} blocks while the database is opened, migrated and
 * seeded; {@link #tokenFor} blocks on the database; {@link #close} blocks until the HTTP server,
 * its threads and the database are shut down (a few seconds at most).
 */
public final class ReferenceServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReferenceServer.class);
    private static final int THREADS = 16;

    private final HttpServer http;
    private final ExecutorService executor;
    private final ServerDatabase db;
    private final TokenStore tokens;
    private final String adminToken;
    private final FaultSwitches faults;
    private final StatsRecorder stats;
    private final ApiRouter router;
    private final AtomicInteger closed = new AtomicInteger();

    private ReferenceServer(HttpServer http, ExecutorService executor, ServerDatabase db, TokenStore tokens,
                            String adminToken, FaultSwitches faults, StatsRecorder stats, ApiRouter router) {
        this.http = http;
        this.executor = executor;
        this.db = db;
        this.tokens = tokens;
        this.adminToken = adminToken;
        this.faults = faults;
        this.stats = stats;
        this.router = router;
    }

    /**
     * Opens the database, seeds it, switches on the configured faults and starts serving.
     *
     * @throws UncheckedIOException if the address cannot be bound (e.g. port in use)
     * @throws IllegalStateException if the database cannot be opened, migrated or seeded (e.g. a
     *     file-backed database locked by another process); nothing is left running
     */
    public static ReferenceServer start(ServerConfig cfg) {
        ServerDatabase db = ServerDatabase.open(cfg.dataDir());
        ExecutorService executor = null;
        try {
            TokenStore tokens = new TokenStore(db, cfg.clock());
            String adminToken = tokens.adminToken();
            RecordStore records = new RecordStore(db);
            if (cfg.seed() == Seed.DEMO) {
                new DemoSeeder(db, tokens, records, cfg.clock()).seed();
            }
            FaultSwitches faults = new FaultSwitches();
            cfg.faults().forEach(faults::apply);
            StatsRecorder stats = new StatsRecorder();
            IdempotencyStore keys = new IdempotencyStore(db, cfg.keyRetention());
            InFlightKeys inFlight = new InFlightKeys();
            FencingStore fencing = new FencingStore();
            AuditLog audits = new AuditLog(db, cfg.audit());
            PushService service = new PushService(db, records, fencing, keys, cfg.clock());
            ApiRouter router = new ApiRouter(new Authenticator(tokens, adminToken), faults, stats, audits, cfg.clock(),
                    new PullHandler(db, records, fencing, cfg.clock()),
                    new PushHandler(service, keys, inFlight, faults, stats, cfg.clock()),
                    new PushStatusHandler(inFlight, keys, cfg.clock()),
                    new AdminHandlers(stats, faults, audits));
            HttpServer http = HttpServer.create(
                    new InetSocketAddress(InetAddress.getByName(cfg.bindAddress()), cfg.port()), 64);
            executor = Executors.newFixedThreadPool(THREADS, namedThreads());
            http.setExecutor(executor);
            http.createContext("/", router);
            http.start();
            ReferenceServer server = new ReferenceServer(http, executor, db, tokens, adminToken, faults, stats, router);
            log.info("sync server listening on {}{}", server.baseUrl(), cfg.audit() ? " (audit log on)" : "");
            return server;
        } catch (IOException e) {
            cleanUp(executor, db);
            throw new UncheckedIOException("cannot bind " + cfg.bindAddress() + ":" + cfg.port() + ": " + e.getMessage(), e);
        } catch (SQLException e) {
            cleanUp(executor, db);
            throw new IllegalStateException("cannot prepare the server database: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            cleanUp(executor, db);
            throw e;
        }
    }

    private static void cleanUp(ExecutorService executor, ServerDatabase db) {
        if (executor != null) {
            executor.shutdownNow();
        }
        db.close();
    }

    private static ThreadFactory namedThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "sync-server-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** E.g. {@code http://127.0.0.1:8787}; no trailing slash. */
    public String baseUrl() {
        InetSocketAddress a = http.getAddress();
        String host = a.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + a.getPort();
    }

    /** The bound port (the chosen one when configured with port 0). */
    public int port() {
        return http.getAddress().getPort();
    }

    /**
     * The user's bearer token, creating the user (with a new random token and no records) if it
     * does not exist yet. Blocks on the database.
     *
     * @throws IllegalArgumentException if {@code user} does not match {@code [A-Za-z0-9._-]{1,64}}
     * @throws IllegalStateException if the database fails
     */
    public String tokenFor(String user) {
        try {
            return tokens.tokenFor(user);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the token of " + user + ": " + e.getMessage(), e);
        }
    }

    /** The admin bearer token, valid only on {@code /v1/admin/...}. */
    public String adminToken() {
        return adminToken;
    }

    /** The live fault switches; changes take effect for following requests. */
    public FaultSwitches faults() {
        return faults;
    }

    /** A snapshot of the in-memory statistics. */
    public ServerStats stats() {
        return stats.snapshot();
    }

    /** Sets every statistic to zero and forgets run intervals. */
    public void resetStats() {
        stats.reset();
    }

    /** The users seeded by {@link Seed#DEMO}, in order. */
    public static List<String> demoUsers() {
        return DemoSeeder.USERS;
    }

    /**
     * Stops accepting requests (new ones get 503 or a refused connection), interrupts requests
     * still executing (their transactions roll back unless already committed), and closes the
     * database. Idempotent.
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
        db.close();
        log.info("sync server on port {} stopped", http.getAddress().getPort());
    }
}
