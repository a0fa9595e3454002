package org.leasesync.client;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import okhttp3.OkHttpClient;
import org.leasesync.run.Coordinator;
import org.leasesync.lease.FatalErrorHandler;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.LeaseStore;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.remote.HttpSyncRemote;
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
 * {@code sync-timer-N}) that {@link #close()} stops.
 *
 * <p>Thread-safe after construction.
 */
public final class ClientRuntime implements AutoCloseable {

    private final ClientConfig config;
    private final LocalStore store;
    private final JdbcLocalEdits edits;
    private final TaskRegistry registry;
    private final LeaseKeeper keeper;
    private final Coordinator coordinator;
    private final RecentSyncGate recentSyncs;
    private final ExecutorService workers;
    private final ScheduledExecutorService timer;
    private final OkHttpClient http;
    private final Map<String, String> tokens;

    /**
     * Wrappers around the sync worker's two ports, for instrumentation (the chaos harness journals
     * every guarded write and stops at named crash points). {@link #NONE} leaves them as they are.
     *
     * @param leases wraps the lease table
     * @param remote wraps the HTTP remote
     * @param local wraps the local database port
     */
    public record Ports(UnaryOperator<LeaseStore> leases, UnaryOperator<SyncRemote> remote,
                        UnaryOperator<LocalData> local) {

        /** No wrapping. */
        public static final Ports NONE = new Ports(UnaryOperator.identity(), UnaryOperator.identity(),
                UnaryOperator.identity());

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
        this.registry = new TaskRegistry(ports.leases().apply(store.leases()), owner, config.leaseTtl(), config.time(),
                OwnerLiveness.processTable(owner.host()));
        this.keeper = new LeaseKeeper(registry, fatal);
        this.workers = Executors.newCachedThreadPool(new NamedThreads("sync-worker", true));
        this.timer = Executors.newScheduledThreadPool(1, new NamedThreads("sync-timer", true));
        this.http = HttpSyncRemote.newSharedClient(config.servers(), config.transport());
        DeviceIdentity.Bound device = store.database().dataDirectory()
                .map(dir -> DeviceIdentity.bind(store.database(), DeviceIdentity.Place.of(dir)))
                .orElseGet(() -> new DeviceIdentity.Bound(edits.clientId(), java.util.Optional.empty()));
        HttpSyncRemote remote = new HttpSyncRemote(config.servers(), http, config.http(), tokens::get, device.clientId());
        SyncWorker worker = new SyncWorker(ports.remote().apply(remote),
                ports.local().apply(new JdbcLocalData(store.database(), config.time())), config.sync(), Sleeper.real());
        // Run ends are stamped on config.time()'s monotonic clock, the one the recent-sync check reads.
        JdbcRunStore runStore = new JdbcRunStore(store.database(), config.time()).withOrigin(config.origin());
        if (device.copiedFrom().isPresent()) {
            String note = "new device: this data directory is a copy of another device's (client id "
                    + device.copiedFrom().get() + "), so it became a device of its own with client id "
                    + device.clientId() + "; its unsent edits are kept and sent under the new id";
            org.slf4j.LoggerFactory.getLogger(ClientRuntime.class).warn("{}: {}", config.dataDir(), note);
            runStore = runStore.withDeviceNote(note);
        }
        this.coordinator = new Coordinator(registry, runStore, worker, workers,
                keeper, timer, config.retry(), fatal);
        this.recentSyncs = new RecentSyncGate(new JdbcRecentSyncs(store.database()), config.time(), owner);
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
}
