package org.leasesync.desktop;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.ExitOnFatalError;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.run.RetryPolicy;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.server.ReferenceServer;
import org.leasesync.store.Database;
import org.leasesync.store.LocalStore;
import org.leasesync.server.ServerConfig;
import org.leasesync.sync.SyncSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.leasesync.store.h2.OpenRetries;

/**
 * What the window runs on: the client runtime and, without {@code --server}, the embedded
 * reference server with demo data (kept in {@code <data dir>/embedded-server} so the demo survives
 * restarts). A second app process on the same data directory finds the first one's embedded server
 * through {@code embedded-server.json} and uses it.
 *
 * <p>Thread-safe after {@link #start}. {@link #close()} stops everything it started.
 */
public final class Backend implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Backend.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the window's runs record as their program ({@link org.leasesync.run.RunOrigin}). */
    public static final String PROGRAM = "leasesync window";

    private final ClientRuntime runtime;
    private final ReferenceServer embedded;
    private final List<String> accounts;
    private final ServerUrls servers;

    private final TransportSecurity transport;

    private Backend(ClientRuntime runtime, ReferenceServer embedded, List<String> accounts, ServerUrls servers,
                    TransportSecurity transport) {
        this.runtime = runtime;
        this.embedded = embedded;
        this.accounts = List.copyOf(accounts);
        this.servers = servers;
        this.transport = transport;
    }

    /**
     * Starts on the given settings. Blocks (opens the database, may start a server).
     *
     * @throws org.leasesync.lease.LeasesyncException or IllegalArgumentException with a plain message
     */
    public static Backend start(AppSettings s) {
        return start(s, org.leasesync.store.UpgradeNotice.NONE);
    }

    /**
     * As {@link #start(AppSettings)}, telling {@code notice} when the local database's schema is
     * upgraded (the window says so while it runs).
     */
    public static Backend start(AppSettings s, org.leasesync.store.UpgradeNotice notice) {
        // The local database first: a damaged or unreachable one is reported before anything else
        // (the embedded server, its files) is started or written.
        LocalStore store = LocalStore.openFile(s.dataDir(), s.dbOpenTimeout(), notice);
        ReferenceServer embedded = null;
        try {
            ServerUrls url;
            Map<String, String> tokens = new LinkedHashMap<>();
            if (s.server().isPresent()) {
                url = s.server().get();
                tokens.put(s.user().orElseThrow(), s.token().orElseThrow());
            } else {
                Path serverDir = s.dataDir().resolve("embedded-server");
                Path info = s.dataDir().resolve("embedded-server.json");
                try {
                    privateServerDirectory(serverDir);
                    embedded = ReferenceServer.start(ServerConfig.defaults().withDataDir(serverDir)
                            .withSeed(org.leasesync.server.demo.Seed.DEMO));
                    tightenServerFiles(serverDir);
                    url = ServerUrls.single(embedded.baseUrl());
                    for (String u : ReferenceServer.demoUsers()) {
                        tokens.put(u, embedded.tokenFor(u));
                    }
                    writeInfo(info, embedded.baseUrl(), tokens);
                } catch (RuntimeException e) {
                    Optional<Map<String, Object>> other = readInfo(info);
                    if (other.isEmpty()) {
                        throw e;
                    }
                    log.info("the embedded server is run by another leasesync process; using it: {}", other.get().get("url"));
                    url = ServerUrls.single((String) other.get().get("url"));
                    @SuppressWarnings("unchecked")
                    Map<String, String> t = (Map<String, String>) other.get().get("tokens");
                    tokens.putAll(t);
                }
            }
            // A window runs all day: after an out-of-memory error it closes and exits instead of limping on.
            ExitOnFatalError onFatal = ExitOnFatalError.forThisProcess();
            ClientRuntime rt = ClientRuntime.open(new ClientConfig(s.dataDir(), url, tokens, s.leaseTtl(), s.http(),
                    SyncSettings.DEFAULT, s.retry(), s.time(), s.dbOpenTimeout(), PROGRAM, s.transport()), store,
                    ClientRuntime.Ports.NONE, onFatal);
            Backend backend = new Backend(rt, embedded, List.copyOf(tokens.keySet()), url, s.transport());
            onFatal.closing(backend);
            return backend;
        } catch (RuntimeException e) {
            if (embedded != null) {
                embedded.close();
            }
            store.close();
            throw e;
        }
    }

    public ClientRuntime runtime() {
        return runtime;
    }

    /** The embedded server, when this process started it (QA fault switches and stats). */
    public Optional<ReferenceServer> embeddedServer() {
        return Optional.ofNullable(embedded);
    }

    /** The accounts the user can switch between, the first being the default. */
    public List<String> accounts() {
        return accounts;
    }

    /** The sync server URL(s) the runtime was given. */
    public ServerUrls servers() {
        return servers;
    }

    /** How the runtime reaches its server: plain http allowed or not, the CA file (the offline probe needs them too). */
    public TransportSecurity transport() {
        return transport;
    }

    /** Ends runs (cancelled, leases released), stops threads, closes the database and the embedded server. */
    public void close(Duration timeout) {
        try {
            runtime.close(timeout);
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /**
     * The embedded server's directory, owner-only before the server writes there: it holds the demo
     * accounts' tokens and records. (The server's own H2 creates its files with the umask; inside
     * a 0700 directory no other account can open them, and {@link #tightenServerFiles} makes them
     * 0600 too.)
     */
    private static void privateServerDirectory(Path serverDir) {
        try {
            OwnerOnlyFiles.directory(serverDir);
        } catch (IOException e) {
            throw new LeasesyncException("cannot make the embedded server's directory " + serverDir + " owner-only: "
                    + e.getMessage() + ". Choose another data directory with --data-dir or LEASESYNC_DATA_DIR.", e);
        }
    }

    /** After the embedded server opened its files: makes them owner-only (best effort, logged). */
    private static void tightenServerFiles(Path serverDir) {
        try {
            OwnerOnlyFiles.tightenTree(serverDir);
        } catch (IOException e) {
            log.warn("could not make the embedded server's files in {} owner-only: {}", serverDir, e.getMessage());
        }
    }

    /** Written atomically, owner-only: it holds the demo accounts' tokens. */
    private static void writeInfo(Path info, String url, Map<String, String> tokens) {
        try {
            OwnerOnlyFiles.writeString(info, JSON.writeValueAsString(Map.of("url", url, "tokens", tokens)));
        } catch (IOException e) {
            log.warn("could not write {}: {}", info, e.toString());
        }
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> readInfo(Path info) {
        try {
            return Files.exists(info) ? Optional.of(JSON.readValue(info.toFile(), Map.class)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The window's settings.
     *
     * @param dataDir data directory
     * @param server sync server URL(s), or empty for the embedded demo server
     * @param user with {@code server}: the account
     * @param token with {@code server}: its token
     * @param leaseTtl lease TTL
     * @param http HTTP timeouts
     * @param scheduleInterval the timer trigger's interval
     * @param foregroundMinInterval no foreground sync when the key synced successfully less than this ago
     * @param retry automatic retries after failures
     * @param time the time source
     * @param dbOpenTimeout how long opening the local database waits for a holder that does not answer
     * @param transport with {@code server}: plain http to another machine allowed or not, the CA file HTTPS
     *     trusts besides the system's authorities
     */
    public record AppSettings(Path dataDir, Optional<ServerUrls> server, Optional<String> user, Optional<String> token,
                              Duration leaseTtl, HttpSettings http, Duration scheduleInterval,
                              Duration foregroundMinInterval, RetryPolicy retry, TimeSource time,
                              Duration dbOpenTimeout, TransportSecurity transport) {

        /** With {@link TransportSecurity#DEFAULT}. */
        public AppSettings(Path dataDir, Optional<ServerUrls> server, Optional<String> user, Optional<String> token,
                           Duration leaseTtl, HttpSettings http, Duration scheduleInterval,
                           Duration foregroundMinInterval, RetryPolicy retry, TimeSource time, Duration dbOpenTimeout) {
            this(dataDir, server, user, token, leaseTtl, http, scheduleInterval, foregroundMinInterval, retry, time,
                    dbOpenTimeout, TransportSecurity.DEFAULT);
        }

        /** Never the token. */
        @Override
        public String toString() {
            return "AppSettings[dataDir=" + dataDir + ", server=" + server + ", user=" + user + ", token="
                    + token.map(t -> "(hidden)").orElse("none") + ", transport=" + transport + "]";
        }

        /** The same settings with {@code transport}. */
        public AppSettings withTransport(TransportSecurity transport) {
            return new AppSettings(dataDir, server, user, token, leaseTtl, http, scheduleInterval, foregroundMinInterval,
                    retry, time, dbOpenTimeout, transport);
        }

        /** With the default database open timeout. */
        public AppSettings(Path dataDir, Optional<ServerUrls> server, Optional<String> user, Optional<String> token,
                           Duration leaseTtl, HttpSettings http, Duration scheduleInterval,
                           Duration foregroundMinInterval, RetryPolicy retry, TimeSource time) {
            this(dataDir, server, user, token, leaseTtl, http, scheduleInterval, foregroundMinInterval, retry, time,
                    OpenRetries.DEFAULT_OPEN_TIMEOUT);
        }

        public AppSettings {
            java.util.Objects.requireNonNull(transport, "transport");
            if (scheduleInterval == null || scheduleInterval.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("schedule interval must be at least 1s, got " + scheduleInterval);
            }
            if (foregroundMinInterval == null || foregroundMinInterval.isNegative()) {
                throw new IllegalArgumentException("foreground minimum interval must be >= 0, got " + foregroundMinInterval);
            }
            OpenRetries.validateOpenTimeout(dbOpenTimeout);
        }
    }
}
