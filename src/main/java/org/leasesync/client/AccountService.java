package org.leasesync.client;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import okhttp3.OkHttpClient;
import org.leasesync.keyring.KeyringException;
import org.leasesync.keyring.KeyringUnavailableException;
import org.leasesync.keyring.TokenFile;
import org.leasesync.keyring.TokenVault;
import org.leasesync.keyring.TokenVaults;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.CertificateNotTrustedException;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.SessionsClient;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.sync.RemoteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signing in and out, and the signed-in accounts of one data directory, for the command line and
 * the window alike. A sign-in asks the server for a session ({@code POST /v1/sessions}), keeps its
 * token in the desktop keyring — or, where no Secret Service answers, in the owner-only
 * {@link TokenFile} — and remembers the account in {@link AccountsFile} (never the token). Results
 * are plain values ({@link SignInResult}, {@link SignOutResult}) a front end shows as they are.
 *
 * <p>Thread-safe (no state beyond the files, each change of which is locked). Every method blocks:
 * on the network (at most the HTTP call timeout), the session bus, a keyring's unlock prompt (at most
 * {@link TokenVaults#PROMPT_TIMEOUT}) or small file operations. No password or token is ever logged
 * or put into a message.
 */
public final class AccountService {

    private static final Logger log = LoggerFactory.getLogger(AccountService.class);

    private final Path dataDir;
    private final Map<String, String> env;
    private final TimeSource time;
    private final AccountsFile accounts;

    /**
     * @param dataDir the data directory (created owner-only when a sign-in writes to it)
     * @param env the environment, for the session bus ({@code DBUS_SESSION_BUS_ADDRESS}, {@code XDG_RUNTIME_DIR})
     * @param time stamps a sign-in
     */
    public AccountService(Path dataDir, Map<String, String> env, TimeSource time) {
        this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        this.env = Map.copyOf(env);
        this.time = Objects.requireNonNull(time, "time");
        this.accounts = new AccountsFile(dataDir);
    }

    /** As the process was started: its environment and the system clock. */
    public static AccountService forThisProcess(Path dataDir) {
        return new AccountService(dataDir, System.getenv(), TimeSource.system());
    }

    /**
     * What a sign-out did.
     *
     * @param account the account that is signed out here now
     * @param server what the server said: ended the session now, had ended it already, could not be told
     *     ({@link #serverProblem()} says why: offline, failing), or nothing to tell (no token was kept)
     * @param serverProblem for {@link Server#NOT_TOLD}: why, for the user
     */
    public record SignOutResult(Account account, Server server, Optional<String> serverProblem) {

        /** What the server made of the sign-out. */
        public enum Server {
            ENDED,
            ALREADY_ENDED,
            NOT_TOLD,
            NO_TOKEN
        }

        public SignOutResult {
            Objects.requireNonNull(account, "account");
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serverProblem, "serverProblem");
        }

        /** A plain sentence for the user. */
        public String message() {
            return "signed out " + account.name()
                    + switch (server) {
                        case ENDED -> "; the server ended the session";
                        case ALREADY_ENDED -> "; the server had ended the session already";
                        case NO_TOKEN -> "; no session token was kept here";
                        case NOT_TOLD ->
                            " here; the server could not be told (" + serverProblem.orElse("") + "), so the "
                                    + "session stays open there until it idles out or you revoke it from another device";
                    };
        }
    }

    /**
     * Signs in and keeps the session: the token in the keyring (else the file), the account in
     * {@code accounts.json}. Signing in again as the same user on the same first server URL replaces
     * the account and its token.
     *
     * @param device the name the user will see in their session list (see {@link #defaultDeviceName()})
     * @param transport checked against {@code servers} first
     * @throws IllegalArgumentException for a plain http URL to another machine without permission, or a
     *     user id the protocol cannot carry (nothing is sent)
     */
    public SignInResult signIn(
            ServerUrls servers,
            String user,
            char[] password,
            String device,
            TransportSecurity transport,
            HttpSettings http) {
        HttpSyncRemote.checkProtocolUserId(user);
        OkHttpClient shared = HttpSyncRemote.newSharedClient(servers, transport);
        try {
            SessionsClient sessions = new SessionsClient(servers, shared, http, time);
            SessionsClient.NewSession session;
            try {
                session = sessions.signIn(user, password, device);
            } catch (RemoteException e) {
                return refused(servers, e);
            }
            log.info("signed in as {} on {} (session {})", user, servers, session.sessionId());
            return keep(servers, user, transport, sessions, session);
        } finally {
            shared.dispatcher().executorService().shutdown();
            shared.connectionPool().evictAll();
        }
    }

    private SignInResult keep(
            ServerUrls servers,
            String user,
            TransportSecurity transport,
            SessionsClient sessions,
            SessionsClient.NewSession session) {
        try {
            return store(servers, user, transport, session.token());
        } catch (LeasesyncException e) { // the keyring, the token file or the accounts file
            endQuietly(sessions, session.token());
            return new SignInResult.Failed("signed in, but the session could not be kept: " + e.getMessage()
                    + "; the new session was ended again");
        }
    }

    /**
     * Keeps a session token the user already has as a signed-in account, as {@link #signIn} does once
     * the server has answered: the token in the keyring (else the file), the account in
     * {@code accounts.json}. For a token that was kept somewhere less safe before (the window's
     * settings file held one in clear before accounts existed). The server is not asked: a token it
     * no longer accepts ends the next sync signed out.
     *
     * @throws IllegalArgumentException for a plain http URL to another machine without permission, or a
     *     user id the protocol cannot carry
     * @throws LeasesyncException when the token or the account cannot be kept (nothing is kept then)
     */
    public SignInResult.SignedIn adopt(ServerUrls servers, String user, String token, TransportSecurity transport) {
        HttpSyncRemote.checkProtocolUserId(user);
        transport.check(servers);
        Objects.requireNonNull(token, "token");
        SignInResult.SignedIn kept = store(servers, user, transport, token);
        log.info(
                "kept an earlier session token of {} as a signed-in account",
                kept.account().name());
        return kept;
    }

    private SignInResult.SignedIn store(ServerUrls servers, String user, TransportSecurity transport, String token) {
        Account draft = new Account(
                servers, user, transport.caFile(), transport.allowInsecureHttp(), TokenVault.Place.KEYRING, time.now());
        DataDirectory.createPrivateDirectory(dataDir);
        TokenVaults.Opened opened = TokenVaults.forNewToken(dataDir, env);
        TokenVault vault = opened.vault();
        Optional<String> whyNotKeyring = opened.whyNotKeyring();
        try {
            try {
                vault.store(draft.slot(), token);
            } catch (KeyringUnavailableException e) {
                vault.close();
                vault = new TokenFile(dataDir);
                whyNotKeyring = Optional.of(e.getMessage());
                vault.store(draft.slot(), token);
            }
            Account account = new Account(
                    servers,
                    user,
                    transport.caFile(),
                    transport.allowInsecureHttp(),
                    vault.place(),
                    draft.signedInAt());
            forgetOtherPlace(account);
            accounts.put(account);
            return new SignInResult.SignedIn(account, vault.description(), whyNotKeyring);
        } finally {
            vault.close();
        }
    }

    /** A token the same account kept in the other place before (the keyring was not there then) goes. */
    private void forgetOtherPlace(Account account) {
        for (Account before : accounts.accounts()) {
            if (before.isOf(account.user(), account.servers()) && before.tokenPlace() != account.tokenPlace()) {
                try (TokenVault old = TokenVaults.open(before.tokenPlace(), dataDir, env)) {
                    old.remove(before.slot());
                } catch (KeyringException e) {
                    log.warn(
                            "could not remove the earlier token of {} from {}: {}",
                            before.name(),
                            before.tokenPlace().wireName(),
                            e.getMessage());
                }
            }
        }
    }

    private static void endQuietly(SessionsClient sessions, String token) {
        try {
            sessions.signOut(token);
        } catch (RemoteException e) {
            log.warn("could not end the session that could not be kept: {}", e.getMessage());
        }
    }

    private static SignInResult refused(ServerUrls servers, RemoteException e) {
        String server = ServerUrls.display(servers.first());
        if (e instanceof CertificateNotTrustedException c) {
            return new SignInResult.CertificateNotTrusted(c.server(), c.sha256Fingerprint());
        }
        if (e.kind() == RemoteException.Kind.HTTP && e.status() == 401) {
            return new SignInResult.WrongPassword(server);
        }
        if (e.kind() == RemoteException.Kind.HTTP && e.status() == 429) {
            return new SignInResult.TooManyAttempts(
                    server,
                    e.retryAfterMillis() < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(e.retryAfterMillis())));
        }
        if (e.kind() == RemoteException.Kind.NOT_SENT) {
            return new SignInResult.Unreachable(e.userMessage());
        }
        log.info("sign-in at {} failed: {}", server, e.getMessage());
        return new SignInResult.Failed("the sign-in at " + server + " failed: " + e.userMessage()
                + (e.serverMessage().isBlank() ? "" : " (" + e.serverMessage().strip() + ")"));
    }

    /**
     * Ends the account's session on the server (best effort: offline, it is still signed out here),
     * removes its token and forgets the account.
     *
     * @throws KeyringException when the token cannot be removed from where it is kept (then the account
     *     stays, so it can be signed out again)
     */
    public SignOutResult signOut(Account account, HttpSettings http) {
        try (TokenVault vault = TokenVaults.open(account.tokenPlace(), dataDir, env)) {
            Optional<String> token = vault.find(account.slot());
            SignOutResult.Server said = SignOutResult.Server.NO_TOKEN;
            Optional<String> problem = Optional.empty();
            if (token.isPresent()) {
                TransportSecurity transport;
                try {
                    transport = account.transport();
                    OkHttpClient shared = HttpSyncRemote.newSharedClient(account.servers(), transport);
                    try {
                        said = new SessionsClient(account.servers(), shared, http, time).signOut(token.get())
                                        == SessionsClient.SignOut.ENDED
                                ? SignOutResult.Server.ENDED
                                : SignOutResult.Server.ALREADY_ENDED;
                    } finally {
                        shared.dispatcher().executorService().shutdown();
                        shared.connectionPool().evictAll();
                    }
                } catch (RemoteException | IllegalArgumentException e) {
                    said = SignOutResult.Server.NOT_TOLD;
                    problem = Optional.of(e instanceof RemoteException r ? r.userMessage() : e.getMessage());
                }
            }
            vault.remove(account.slot());
            accounts.remove(account.user(), account.servers());
            log.info("signed out {} (server: {})", account.name(), said);
            return new SignOutResult(account, said, problem);
        }
    }

    /**
     * The signed-in accounts, oldest sign-in first.
     *
     * @throws LeasesyncException when the accounts file cannot be read
     */
    public List<Account> accounts() {
        return accounts.accounts();
    }

    /**
     * The account a command works with when no token is given: the only one; of several, the one of
     * {@code user} (and of {@code server}, when given).
     *
     * @throws IllegalArgumentException naming the signed-in accounts when none or several fit (a usage error)
     */
    public Account choose(Optional<String> user, Optional<ServerUrls> server) {
        List<Account> all = accounts();
        if (all.isEmpty()) {
            throw new IllegalArgumentException(
                    "no account is signed in here: sign in with 'leasesync login --server URL "
                            + "--user NAME --password-stdin', or give --server, --user and --token");
        }
        List<Account> fit = all.stream()
                .filter(a -> user.map(a.user()::equals).orElse(true))
                .filter(a -> server.map(s -> a.server().equals(ServerUrls.display(s.first())))
                        .orElse(true))
                .toList();
        if (fit.size() == 1) {
            return fit.get(0);
        }
        String names = all.stream().map(Account::name).collect(Collectors.joining(", "));
        if (fit.isEmpty()) {
            return fail("no signed-in account is " + user.orElse("any user")
                    + server.map(s -> " on " + ServerUrls.display(s.first())).orElse("") + " (signed in: " + names
                    + ")");
        }
        return fail(
                user.isEmpty()
                        ? "several accounts are signed in (" + names + "): pick one with --user"
                        : user.get() + " is signed in on several servers (" + names + "): pick one with --server");
    }

    private static Account fail(String message) {
        throw new IllegalArgumentException(message);
    }

    /**
     * The account a window starts with when none is given on its command line: the one of {@code user},
     * else the newest sign-in; empty when none is signed in (the window then starts as before).
     *
     * @throws IllegalArgumentException when {@code user} is given and has no account, or several
     */
    public Optional<Account> forWindow(Optional<String> user) {
        List<Account> all = accounts();
        if (all.isEmpty() && user.isEmpty()) {
            return Optional.empty();
        }
        return user.isPresent() ? Optional.of(choose(user, Optional.empty())) : Optional.of(all.get(all.size() - 1));
    }

    /**
     * The account's session token, from where it is kept.
     *
     * @throws KeyringException when it cannot be read there, or is missing (then the account is signed
     *     in here no longer: sign in again)
     */
    public String token(Account account) {
        try (TokenVault vault = TokenVaults.open(account.tokenPlace(), dataDir, env)) {
            return vault.find(account.slot())
                    .orElseThrow(() -> new KeyringException("no session token of "
                            + account.name() + " is kept in " + vault.description()
                            + " any more: sign in again ('leasesync "
                            + "login --server " + account.server() + " --user " + account.user()
                            + " --password-stdin')"));
        }
    }

    /** "leasesync on HOSTNAME", the device name a sign-in gives by default (1..100 printable characters). */
    public static String defaultDeviceName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | RuntimeException e) {
            host = "";
        }
        String name = host.isBlank() ? "leasesync" : "leasesync on " + host;
        name = name.chars()
                .filter(c -> c >= 0x20 && c < 0x7f)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                .toString();
        return name.length() > 100 ? name.substring(0, 100) : name;
    }
}
