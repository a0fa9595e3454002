package org.leasesync.client;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import okhttp3.OkHttpClient;
import org.leasesync.lease.FatalErrorHandler;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunOrigin;
import org.leasesync.store.DeviceIdentity;
import org.leasesync.store.JdbcLocalData;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.store.JdbcRunStore;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.LocalData;
import org.leasesync.sync.RecentSyncGate;
import org.leasesync.sync.Sleeper;
import org.leasesync.sync.SyncRemote;
import org.leasesync.sync.SyncWorker;

/**
 * The composition of a client process: local database, registry, heartbeat, coordinator, HTTP
 * client and sync worker, with named, owned executors ({@code sync-worker-N},
 * {@code sync-timer-N}) that {@link #close()} stops. Its runs talk to the configured server, or
 * — for a user given a server of its own with {@link #useAccount} (the window's accounts on other
 * servers) — to that one; each run keeps the server it started with.
 *
 * <p>Thread-safe after construction.
 */
public final class ClientRuntime implements AutoCloseable {

    private final ClientConfig config;
    private final LocalStore store;
    private final JdbcLocalEdits edits;
    /** The client id this device sends ({@link DeviceIdentity}: a copied data directory gets its own). */
    private final String clientId;

    private final TaskRegistry registry;
    private final LeaseKeeper keeper;
    private final Coordinator coordinator;
    private final RecentSyncGate recentSyncs;
    private final ExecutorService workers;
    private final ScheduledExecutorService timer;
    private final OkHttpClient http;
    private final Map<String, String> tokens;
    /** Users given a server and token at run time ({@link #useAccount}); the others use the configured server. */
    private final Map<String, Route> routes = new ConcurrentHashMap<>();

    /** The remote each running run started with (by run id), so a run never talks to two servers. */
    private final Map<String, SyncRemote> pinned = new ConcurrentHashMap<>();

    /** One user's server as the window last gave it: its URLs, how to reach them, the remote with its token. */
    private record Route(ServerUrls servers, TransportSecurity transport, HttpSyncRemote remote) {}

    /**
     * Wrappers around the sync worker's two ports, for instrumentation (the chaos harness journals
     * every guarded write and stops at named crash points). {@link #NONE} leaves them as they are.
     *
     * @param leases wraps the lease table
     * @param remote wraps the HTTP remote
     * @param local wraps the local database port
     */
    public record Ports(
            UnaryOperator<LeaseStore> leases, UnaryOperator<SyncRemote> remote, UnaryOperator<LocalData> local) {

        /** No wrapping. */
        public static final Ports NONE =
                new Ports(UnaryOperator.identity(), UnaryOperator.identity(), UnaryOperator.identity());

        public Ports {
            java.util.Objects.requireNonNull(leases, "leases");
            java.util.Objects.requireNonNull(remote, "remote");
            java.util.Objects.requireNonNull(local, "local");
        }
    }

    private ClientRuntime(ClientConfig config, LocalStore store, Ports ports, FatalErrorHandler fatal) {
        this.config = config;
        this.store = store;
        this.tokens = new ConcurrentHashMap<>(config.tokens());
        this.edits = new JdbcLocalEdits(store.database(), config.time());
        OwnerId owner = OwnerId.forCurrentProcess();
        this.registry = new TaskRegistry(
                ports.leases().apply(store.leases()),
                owner,
                config.leaseTtl(),
                config.time(),
                OwnerLiveness.processTable(owner.host()));
        this.keeper = new LeaseKeeper(registry, fatal);
        this.workers = Executors.newCachedThreadPool(new NamedThreads("sync-worker", true));
        this.timer = Executors.newScheduledThreadPool(1, new NamedThreads("sync-timer", true));
        this.http = HttpSyncRemote.newSharedClient(config.servers(), config.transport());
        DeviceIdentity.Bound device = store.database()
                .dataDirectory()
                .map(dir -> DeviceIdentity.bind(store.database(), DeviceIdentity.Place.of(dir)))
                .orElseGet(() -> new DeviceIdentity.Bound(edits.clientId(), java.util.Optional.empty()));
        this.clientId = device.clientId();
        HttpSyncRemote configured =
                new HttpSyncRemote(config.servers(), http, config.http(), tokens::get, clientId, config.time());
        SyncRemote remote = new ByUser(configured, routes, pinned);
        SyncWorker worker = new SyncWorker(
                ports.remote().apply(remote),
                ports.local().apply(new JdbcLocalData(store.database(), config.time())),
                config.sync(),
                Sleeper.real());
        // Run ends are stamped on config.time()'s monotonic clock, the one the recent-sync check reads.
        JdbcRunStore runStore = new JdbcRunStore(store.database(), config.time()).withOrigins(this::originOf);
        if (device.copiedFrom().isPresent()) {
            String note = "new device: this data directory is a copy of another device's (client id "
                    + device.copiedFrom().get() + "), so it became a device of its own with client id "
                    + device.clientId() + "; its unsent edits are kept and sent under the new id";
            org.slf4j.LoggerFactory.getLogger(ClientRuntime.class).warn("{}: {}", config.dataDir(), note);
            runStore = runStore.withDeviceNote(note);
        }
        this.coordinator = new Coordinator(registry, runStore, worker, workers, keeper, timer, config.retry(), fatal);
        coordinator.setServerWaits(new org.leasesync.store.JdbcServerWaits(store.database()));
        this.recentSyncs = new RecentSyncGate(new JdbcRecentSyncs(store.database()), config.time(), owner);
        coordinator.addListener(e -> {
            if (e.kind() == org.leasesync.run.RunEvent.Kind.FINISHED) {
                e.result().ifPresent(r -> pinned.remove(r.runId()));
            }
        });
        keeper.start(timer);
    }

    /**
     * Opens the local database in the configured data directory and wires everything.
     *
     * @throws org.leasesync.lease.StoreException if the database cannot be opened
     */
    public static ClientRuntime open(ClientConfig config) {
        return open(config, Ports.NONE);
    }

    /**
     * Like {@link #open(ClientConfig)}, with the sync worker's ports wrapped.
     *
     * @throws org.leasesync.lease.StoreException if the database cannot be opened
     */
    public static ClientRuntime open(ClientConfig config, Ports ports) {
        return open(config, LocalStore.openFile(config.dataDir(), config.dbOpenTimeout()), ports);
    }

    /**
     * Wires everything on an open local store, which the runtime then owns (closed by
     * {@link #close()}, or here if wiring fails).
     */
    public static ClientRuntime open(ClientConfig config, LocalStore store) {
        return open(config, store, Ports.NONE);
    }

    /** Like {@link #open(ClientConfig, LocalStore)}, with the sync worker's ports wrapped. */
    public static ClientRuntime open(ClientConfig config, LocalStore store, Ports ports) {
        return open(config, store, ports, FatalErrorHandler.LOG_ONLY);
    }

    /**
     * Like {@link #open(ClientConfig, LocalStore, Ports)}, with what the process does after a fatal
     * error in a run or the heartbeat ({@link FatalErrorHandler#isFatal}): one-shot commands only
     * report the failed run ({@link FatalErrorHandler#LOG_ONLY}); the window and the chaos agent
     * exit ({@link ExitOnFatalError}).
     */
    public static ClientRuntime open(ClientConfig config, LocalStore store, Ports ports, FatalErrorHandler fatal) {
        try {
            return new ClientRuntime(config, store, ports, fatal);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public ClientConfig config() {
        return config;
    }

    public Coordinator coordinator() {
        return coordinator;
    }

    public TaskRegistry registry() {
        return registry;
    }

    /**
     * Whether a background trigger is due or the key synced moments ago, in any process on this
     * data directory (the window's timer and foreground triggers ask it first).
     */
    public RecentSyncGate recentSyncs() {
        return recentSyncs;
    }

    public LocalStore store() {
        return store;
    }

    public JdbcLocalEdits edits() {
        return edits;
    }

    /** The scheduler for timers (named {@code sync-timer-N}). */
    public ScheduledExecutorService timer() {
        return timer;
    }

    /** The process's one shared HTTP client (derive from it with {@code newBuilder()}). */
    public OkHttpClient http() {
        return http;
    }

    /** Adds or replaces a user's token (account added at run time, or signed in again). */
    public void putToken(String user, String token) {
        tokens.put(user, token);
    }

    /**
     * From now on, {@code user}'s runs talk to {@code servers}, reached as {@code transport} says, with
     * {@code token} (empty: none is known, so the server will refuse them as signed out). A run already
     * going on keeps the server and the token it started with until it ends, so no run ever talks to
     * two servers. Does not block.
     *
     * @throws IllegalArgumentException for a plain {@code http://} URL to another machine without permission
     */
    public void useAccount(String user, ServerUrls servers, TransportSecurity transport, Optional<String> token) {
        java.util.Objects.requireNonNull(user, "user");
        transport.check(servers);
        OkHttpClient client = servers.equals(config.servers()) && transport.equals(config.transport())
                ? http
                : transport.configure(http.newBuilder(), servers).build(); // shares the pool and the threads
        String t = token.orElse(null);
        // the token belongs to this route only: a run that started on the user's earlier route keeps its own
        routes.put(
                user,
                new Route(
                        servers,
                        transport,
                        new HttpSyncRemote(
                                servers,
                                client,
                                config.http(),
                                u -> u.equals(user) ? t : null,
                                clientId,
                                config.time())));
    }

    /**
     * Forgets {@code user}'s token and own server (signed out): its later requests carry no token. Does
     * not cancel its runs; does not block.
     */
    public void forgetAccount(String user) {
        tokens.remove(user);
        routes.remove(user);
    }

    /** The server URL(s) {@code user}'s requests go to. */
    public ServerUrls serversOf(String user) {
        Route r = routes.get(user);
        return r == null ? config.servers() : r.servers();
    }

    /** How {@code user}'s server is reached (plain http allowed or not, the CA file). */
    public TransportSecurity transportOf(String user) {
        Route r = routes.get(user);
        return r == null ? config.transport() : r.transport();
    }

    /** What a run of {@code key} records as its origin: this program and the key's user's server. */
    public RunOrigin originOf(TaskKey key) {
        Route r = routes.get(key.userId());
        return r == null ? config.origin() : ClientConfig.origin(config.program(), r.servers());
    }

    /** Shuts down within {@code timeout}: cancels runs, stops threads, closes HTTP and the database. Blocks. */
    public void close(Duration timeout) {
        // Cancel runs first, then their HTTP calls, so that a run blocked on the network notices at
        // once, records "cancelled" and releases its lease before the database closes.
        coordinator.cancelAll("the app is shutting down");
        http.dispatcher().cancelAll();
        coordinator.shutdown(timeout);
        keeper.close();
        timer.shutdownNow();
        workers.shutdown();
        try {
            workers.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
        store.close();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /** The configured server's remote, or the one of the key's user when it has a server of its own. */
    private static final class ByUser implements SyncRemote {
        private final SyncRemote configured;
        private final Map<String, Route> routes;

        private final Map<String, SyncRemote> pinned;

        ByUser(SyncRemote configured, Map<String, Route> routes, Map<String, SyncRemote> pinned) {
            this.configured = configured;
            this.routes = routes;
            this.pinned = pinned;
        }

        /** The remote of the run's first call, for every later call of that run. */
        private SyncRemote of(TaskKey key, String runId) {
            return pinned.computeIfAbsent(runId, id -> {
                Route r = routes.get(key.userId());
                return r == null ? configured : r.remote();
            });
        }

        @Override
        public org.leasesync.sync.PullPage pull(
                TaskKey key,
                Optional<String> cursor,
                Optional<String> pushedPosition,
                int limit,
                long fencingToken,
                String runId) {
            return of(key, runId).pull(key, cursor, pushedPosition, limit, fencingToken, runId);
        }

        @Override
        public org.leasesync.sync.PushResponse push(
                TaskKey key, org.leasesync.sync.PushBatch batch, long fencingToken, String runId) {
            return of(key, runId).push(key, batch, fencingToken, runId);
        }

        @Override
        public org.leasesync.sync.PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
            return of(key, runId).pushStatus(key, idempotencyKey, runId);
        }
    }
}
