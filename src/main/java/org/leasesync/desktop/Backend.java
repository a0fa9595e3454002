package org.leasesync.desktop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.ExitOnFatalError;
import org.leasesync.keyring.KeyringException;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.run.RetryPolicy;
import org.leasesync.server.ReferenceServer;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.OpenRetries;
import org.leasesync.sync.SyncSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the window runs on: the client runtime, the accounts it switches between
 * ({@link WindowAccounts}) and, when no account is given or signed in, the embedded reference
 * server with demo data ({@link EmbeddedDemo}). The runtime starts with the account given on the
 * command line ({@code --server}), else the newest signed-in account, else the demo.
 *
 * <p>Thread-safe after {@link #start}. {@link #close()} stops everything it started.
 */
public final class Backend implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Backend.class);

    /** What the window's runs record as their program ({@link org.leasesync.run.RunOrigin}). */
    public static final String PROGRAM = "leasesync window";

    private final ClientRuntime runtime;
    private final EmbeddedDemo demo;
    private final WindowAccounts accounts;
    private final ServerUrls servers;
    private final TransportSecurity transport;
    private final Optional<LegacyServerMove.Result> legacy;

    private Backend(
            ClientRuntime runtime,
            EmbeddedDemo demo,
            WindowAccounts accounts,
            ServerUrls servers,
            TransportSecurity transport,
            Optional<LegacyServerMove.Result> legacy) {
        this.runtime = runtime;
        this.demo = demo;
        this.accounts = accounts;
        this.servers = servers;
        this.transport = transport;
        this.legacy = legacy;
    }

    /**
     * Starts on the given settings, with this process's accounts ({@link AccountService#forThisProcess}).
     * Blocks (opens the database, may start a server, may read a token from the keyring).
     *
     * @throws org.leasesync.lease.LeasesyncException or IllegalArgumentException with a plain message
     */
    public static Backend start(AppSettings s) {
        return start(s, AccountService.forThisProcess(s.dataDir()), org.leasesync.store.UpgradeNotice.NONE);
    }

    /**
     * As {@link #start(AppSettings)}, telling {@code notice} when the local database's schema is
     * upgraded (the window says so while it runs).
     */
    public static Backend start(AppSettings s, org.leasesync.store.UpgradeNotice notice) {
        return start(s, AccountService.forThisProcess(s.dataDir()), notice);
    }

    /**
     * Starts on the given settings and accounts (tests give theirs a session bus of their own, or none).
     *
     * @throws org.leasesync.lease.LeasesyncException or IllegalArgumentException with a plain message
     */
    public static Backend start(AppSettings s, AccountService service) {
        return start(s, service, org.leasesync.store.UpgradeNotice.NONE);
    }

    /**
     * Starts on the given settings and accounts, telling {@code notice} when the local database's
     * schema is upgraded.
     *
     * @throws org.leasesync.lease.LeasesyncException or IllegalArgumentException with a plain message
     */
    public static Backend start(AppSettings s, AccountService service, org.leasesync.store.UpgradeNotice notice) {
        // The local database first: a damaged or unreachable one is reported before anything else
        // (the embedded server, its files, the accounts) is started or written.
        LocalStore store = LocalStore.openFile(s.dataDir(), s.dbOpenTimeout(), notice);
        EmbeddedDemo demo = new EmbeddedDemo(s.dataDir());
        try {
            Optional<LegacyServerMove.Result> legacy = LegacyServerMove.run(s.dataDir(), service);
            List<Account> signedIn = signedIn(service);
            ServerUrls url;
            TransportSecurity transport;
            Map<String, String> tokens = new LinkedHashMap<>();
            List<WindowAccounts.Entry> entries = new ArrayList<>();
            if (s.server().isPresent()) {
                url = s.server().get();
                transport = s.transport();
                String user = s.user().orElseThrow();
                s.token().ifPresent(t -> tokens.put(user, t));
                Optional<Account> same =
                        signedIn.stream().filter(a -> a.isOf(user, url)).findFirst();
                entries.add(same.map(WindowAccounts.Entry::of)
                        .orElse(new WindowAccounts.Entry(
                                user, WindowAccounts.Kind.COMMAND_LINE, url, Optional.empty())));
            } else if (!signedIn.isEmpty()) {
                Account newest = signedIn.get(signedIn.size() - 1);
                url = newest.servers();
                transport = newest.transport();
                try {
                    tokens.put(newest.user(), service.token(newest));
                } catch (KeyringException e) {
                    // its first run ends signed out, and the card says to sign in again
                    log.warn("starting as {} without a token: {}", newest.name(), e.getMessage());
                }
                entries.add(WindowAccounts.Entry.of(newest));
            } else {
                EmbeddedDemo.Started d = demo.start();
                url = d.url();
                transport = TransportSecurity.DEFAULT;
                tokens.putAll(d.tokens());
                d.tokens()
                        .keySet()
                        .forEach(u -> entries.add(
                                new WindowAccounts.Entry(u, WindowAccounts.Kind.DEMO, d.url(), Optional.empty())));
            }
            for (Account a : signedIn) {
                if (entries.stream().noneMatch(e -> e.user().equals(a.user()))) {
                    entries.add(WindowAccounts.Entry.of(a));
                } else if (!entries.get(0).account().equals(Optional.of(a))) {
                    log.warn(
                            "not offering {}: {} is already this window's account on another server",
                            a.name(),
                            a.user());
                }
            }
            // A window runs all day: after an out-of-memory error it closes and exits instead of limping on.
            ExitOnFatalError onFatal = ExitOnFatalError.forThisProcess();
            ClientRuntime rt = ClientRuntime.open(
                    new ClientConfig(
                            s.dataDir(),
                            url,
                            tokens,
                            s.leaseTtl(),
                            s.http(),
                            SyncSettings.DEFAULT,
                            s.retry(),
                            s.time(),
                            s.dbOpenTimeout(),
                            PROGRAM,
                            transport),
                    store,
                    ClientRuntime.Ports.NONE,
                    onFatal);
            SignedOutGate gate = new SignedOutGate();
            rt.coordinator().addListener(gate);
            java.util.Set<String> ready = entries.get(0).kind() == WindowAccounts.Kind.DEMO
                    ? java.util.Set.copyOf(tokens.keySet())
                    : java.util.Set.of(entries.get(0).user());
            WindowAccounts accounts = new WindowAccounts(service, rt, demo, s.http(), gate, entries, ready);
            Backend backend = new Backend(rt, demo, accounts, url, transport, legacy);
            onFatal.closing(backend);
            return backend;
        } catch (RuntimeException e) {
            demo.close();
            store.close();
            throw e;
        }
    }

    /** The signed-in accounts, oldest first; none when the accounts file cannot be read (logged). */
    private static List<Account> signedIn(AccountService service) {
        try {
            return service.accounts();
        } catch (LeasesyncException e) {
            log.warn("the signed-in accounts cannot be read: {}", e.getMessage());
            return List.of();
        }
    }

    public ClientRuntime runtime() {
        return runtime;
    }

    /** The embedded server, when this process started it (QA fault switches and stats). */
    public Optional<ReferenceServer> embeddedServer() {
        return demo.server();
    }

    /** The accounts the user can switch between, and signing in and out. */
    public WindowAccounts accounts() {
        return accounts;
    }

    /** The sync server URL(s) the runtime was configured with (the first account's). */
    public ServerUrls servers() {
        return servers;
    }

    /** How the runtime reaches its configured server: plain http allowed or not, the CA file. */
    public TransportSecurity transport() {
        return transport;
    }

    /** What became of a server entry with a token that an older version kept in {@code settings.json}. */
    public Optional<LegacyServerMove.Result> legacyServer() {
        return legacy;
    }

    /** Ends runs (cancelled, leases released), stops threads, closes the database and the embedded server. */
    public void close(Duration timeout) {
        try {
            runtime.close(timeout);
        } finally {
            demo.close();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
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
    public record AppSettings(
            Path dataDir,
            Optional<ServerUrls> server,
            Optional<String> user,
            Optional<String> token,
            Duration leaseTtl,
            HttpSettings http,
            Duration scheduleInterval,
            Duration foregroundMinInterval,
            RetryPolicy retry,
            TimeSource time,
            Duration dbOpenTimeout,
            TransportSecurity transport) {

        /** With {@link TransportSecurity#DEFAULT}. */
        public AppSettings(
                Path dataDir,
                Optional<ServerUrls> server,
                Optional<String> user,
                Optional<String> token,
                Duration leaseTtl,
                HttpSettings http,
                Duration scheduleInterval,
                Duration foregroundMinInterval,
                RetryPolicy retry,
                TimeSource time,
                Duration dbOpenTimeout) {
            this(
                    dataDir,
                    server,
                    user,
                    token,
                    leaseTtl,
                    http,
                    scheduleInterval,
                    foregroundMinInterval,
                    retry,
                    time,
                    dbOpenTimeout,
                    TransportSecurity.DEFAULT);
        }

        /** Never the token. */
        @Override
        public String toString() {
            return "AppSettings[dataDir=" + dataDir + ", server=" + server + ", user=" + user + ", token="
                    + token.map(t -> "(hidden)").orElse("none") + ", transport=" + transport + "]";
        }

        /** The same settings with {@code transport}. */
        public AppSettings withTransport(TransportSecurity transport) {
            return new AppSettings(
                    dataDir,
                    server,
                    user,
                    token,
                    leaseTtl,
                    http,
                    scheduleInterval,
                    foregroundMinInterval,
                    retry,
                    time,
                    dbOpenTimeout,
                    transport);
        }

        /** With the default database open timeout. */
        public AppSettings(
                Path dataDir,
                Optional<ServerUrls> server,
                Optional<String> user,
                Optional<String> token,
                Duration leaseTtl,
                HttpSettings http,
                Duration scheduleInterval,
                Duration foregroundMinInterval,
                RetryPolicy retry,
                TimeSource time) {
            this(
                    dataDir,
                    server,
                    user,
                    token,
                    leaseTtl,
                    http,
                    scheduleInterval,
                    foregroundMinInterval,
                    retry,
                    time,
                    OpenRetries.DEFAULT_OPEN_TIMEOUT);
        }

        public AppSettings {
            java.util.Objects.requireNonNull(transport, "transport");
            if (scheduleInterval == null || scheduleInterval.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("schedule interval must be at least 1s, got " + scheduleInterval);
            }
            if (foregroundMinInterval == null || foregroundMinInterval.isNegative()) {
                throw new IllegalArgumentException(
                        "foreground minimum interval must be >= 0, got " + foregroundMinInterval);
            }
            OpenRetries.validateOpenTimeout(dbOpenTimeout);
        }
    }
}
