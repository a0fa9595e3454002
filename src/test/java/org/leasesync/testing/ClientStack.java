package org.leasesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import org.leasesync.lease.LeaseKeeper;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.run.Coordinator;
import org.leasesync.run.RunResult;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.JdbcLocalData;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.Sleeper;
import org.leasesync.sync.SyncSettings;
import org.leasesync.sync.SyncWorker;

/** A real client (registry, coordinator, worker, HTTP) in the test JVM, on a given local store. */
public final class ClientStack implements AutoCloseable {

    public static final OkHttpClient HTTP = HttpSyncRemote.newSharedClient();
    static final java.util.concurrent.atomic.AtomicInteger NONCES =
            new java.util.concurrent.atomic.AtomicInteger(0x100);

    public final LocalStore store;
    public final JdbcLocalEdits edits;
    public final TaskRegistry registry;
    public final Coordinator coordinator;
    public final HttpSyncRemote remote;
    private final ExecutorService workers = Executors.newCachedThreadPool();
    private final LeaseKeeper keeper;
    private java.util.concurrent.ScheduledExecutorService renewals;

    public ClientStack(
            LocalStore store,
            String baseUrl,
            Map<String, String> tokens,
            TimeSource time,
            SyncSettings settings,
            HttpSettings http) {
        this(store, baseUrl, tokens, time, settings, http, java.util.function.UnaryOperator.identity());
    }

    /** @param wrap wraps the remote the worker uses (to act between a run's calls) */
    public ClientStack(
            LocalStore store,
            String baseUrl,
            Map<String, String> tokens,
            TimeSource time,
            SyncSettings settings,
            HttpSettings http,
            java.util.function.UnaryOperator<org.leasesync.sync.SyncRemote> wrap) {
        this(store, baseUrl, tokens, time, settings, http, wrap, HTTP);
    }

    /** With {@code shared} as the application's one HTTP client (e.g. {@link #HTTP} with an interceptor added). */
    public ClientStack(LocalStore store, String baseUrl, Map<String, String> tokens, OkHttpClient shared) {
        this(
                store,
                baseUrl,
                tokens,
                TimeSource.system(),
                SyncSettings.DEFAULT,
                HttpSettings.DEFAULT,
                java.util.function.UnaryOperator.identity(),
                shared);
    }

    private ClientStack(
            LocalStore store,
            String baseUrl,
            Map<String, String> tokens,
            TimeSource time,
            SyncSettings settings,
            HttpSettings http,
            java.util.function.UnaryOperator<org.leasesync.sync.SyncRemote> wrap,
            OkHttpClient shared) {
        this.store = store;
        this.edits = new JdbcLocalEdits(store.database(), time);
        this.registry = new TaskRegistry(
                store.leases(),
                new OwnerId("test", ProcessHandle.current().pid(), 1, Integer.toHexString(NONCES.incrementAndGet())),
                Duration.ofSeconds(60),
                time,
                OwnerLiveness.neverProvable());
        this.remote = new HttpSyncRemote(
                org.leasesync.remote.ServerUrls.parse(baseUrl), shared, http, tokens::get, edits.clientId(), time);
        SyncWorker worker =
                new SyncWorker(wrap.apply(remote), new JdbcLocalData(store.database(), time), settings, Sleeper.real());
        this.keeper = new LeaseKeeper(registry);
        this.coordinator = new Coordinator(registry, store.runs(), worker, workers, keeper, null, null);
        coordinator.setServerWaits(new org.leasesync.store.JdbcServerWaits(store.database()));
    }

    public ClientStack(LocalStore store, String baseUrl, Map<String, String> tokens) {
        this(store, baseUrl, tokens, TimeSource.system(), SyncSettings.DEFAULT, HttpSettings.DEFAULT);
    }

    /** Renews held leases in the background, as the app does (for runs longer than 90% of the TTL). */
    public void keepLeasesAlive() {
        renewals = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "lease-keeper"));
        keeper.start(renewals);
    }

    /** Submits and waits for the run this submit started. */
    public RunResult sync(TaskKey key, TaskSource source) throws Exception {
        SubmitResult r = coordinator.submit(TriggerRequest.of(key, source));
        assertThat(r).as("submit result").isInstanceOf(SubmitResult.Started.class);
        return ((SubmitResult.Started) r).handle().completion().get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        coordinator.shutdown(Duration.ofSeconds(5));
        workers.shutdownNow();
        if (renewals != null) {
            renewals.shutdownNow();
        }
    }
}
