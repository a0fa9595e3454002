package org.leasesync.desktop;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.client.ClientRuntime;
import org.leasesync.client.SignInResult;
import org.leasesync.keyring.KeyringException;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accounts the window switches between, and signing in and out from the window. The list is
 * the account given on the command line for this launch (if any) and the signed-in accounts of the
 * data directory ({@link AccountService}); when there is neither, the embedded demo server's users —
 * the first-run default, which comes back when the last account signs out. It tells the runtime
 * where each account's runs go and with which token ({@link ClientRuntime#useAccount}): an account's
 * token is read from where it is kept the first time the window switches to it.
 *
 * <p>One user id is one account at a time: the local database keeps a user's data by user id, so a
 * second account of the same user on another server is refused ({@link #signedInElsewhere}).
 *
 * <p>Thread-safe. {@link #entries()}, {@link #entry} and {@link #signedInElsewhere} do not block;
 * {@link #prepare}, {@link #signIn} and {@link #signOut} block (network, session bus, a keyring
 * prompt, starting the embedded server): call them off the FX thread.
 */
public final class WindowAccounts implements SignInPort {

    private static final Logger log = LoggerFactory.getLogger(WindowAccounts.class);

    /** Where an entry comes from. */
    public enum Kind {
        /** A user of the embedded demo server. */
        DEMO,
        /** A signed-in account ({@code accounts.json}, its token in the keyring or the token file). */
        SIGNED_IN,
        /** Given on the command line for this launch ({@code --server}, {@code --user}, a token): not signed in here. */
        COMMAND_LINE
    }

    /**
     * One account of the switcher.
     *
     * @param user the user id (unique in the list)
     * @param kind where it comes from
     * @param servers where its runs go
     * @param account for {@link Kind#SIGNED_IN}: the account as remembered
     */
    public record Entry(String user, Kind kind, ServerUrls servers, Optional<Account> account) {
        public Entry {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(servers, "servers");
            Objects.requireNonNull(account, "account");
        }

        /** The first server URL, for display. */
        public String server() {
            return ServerUrls.display(servers.first());
        }

        /** The first server's host, with its port when it is not the scheme's default: "sync.example.org". */
        public String host() {
            var url = servers.first();
            return url.port() == okhttp3.HttpUrl.defaultPort(url.scheme()) ? url.host() : url.host() + ":" + url.port();
        }

        static Entry of(Account a) {
            return new Entry(a.user(), Kind.SIGNED_IN, a.servers(), Optional.of(a));
        }
    }

    /**
     * What a sign-out did.
     *
     * @param result what the server made of it; empty when the token could not be removed (then the
     *     account stays signed in here, {@link #problem} says why)
     * @param entries the accounts left to switch between (the demo's users when none is left); empty
     *     only when the demo could not be started either
     * @param problem why the token could not be removed, or the demo not be started
     */
    public record SignOut(
            Optional<AccountService.SignOutResult> result, List<Entry> entries, Optional<String> problem) {
        public SignOut {
            Objects.requireNonNull(result, "result");
            entries = List.copyOf(entries);
            Objects.requireNonNull(problem, "problem");
        }
    }

    private final AccountService service;
    private final ClientRuntime runtime;
    private final EmbeddedDemo demo;
    private final HttpSettings http;
    private final SignedOutGate gate;
    private final List<Entry> entries = new ArrayList<>();
    /** Users whose server and token the runtime has. */
    private final Set<String> ready = ConcurrentHashMap.newKeySet();

    /**
     * @param initial the accounts to start with, the one the runtime was configured for first
     * @param readyUsers the users whose server and token the runtime already has
     */
    public WindowAccounts(
            AccountService service,
            ClientRuntime runtime,
            EmbeddedDemo demo,
            HttpSettings http,
            SignedOutGate gate,
            List<Entry> initial,
            Set<String> readyUsers) {
        this.service = Objects.requireNonNull(service, "service");
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.demo = Objects.requireNonNull(demo, "demo");
        this.http = Objects.requireNonNull(http, "http");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.entries.addAll(initial);
        this.ready.addAll(readyUsers);
    }

    /** The accounts to switch between, the default first. */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** The entry of {@code user}, if it is in the list. */
    public synchronized Optional<Entry> entry(String user) {
        return entries.stream().filter(e -> e.user().equals(user)).findFirst();
    }

    /** Whether any account of the list is signed in here (else the demo, or the command line's account). */
    public synchronized boolean anySignedIn() {
        return entries.stream().anyMatch(e -> e.kind() == Kind.SIGNED_IN);
    }

    /** The signed-out gate the window's automatic triggers pass. */
    public SignedOutGate gate() {
        return gate;
    }

    @Override
    public synchronized Optional<String> signedInElsewhere(String user, ServerUrls servers) {
        String first = ServerUrls.display(servers.first());
        return entries.stream()
                .filter(e -> e.kind() != Kind.DEMO
                        && e.user().equals(user)
                        && !e.server().equals(first))
                .map(Entry::server)
                .findFirst();
    }

    /**
     * Makes the runtime ready to sync {@code user}: a signed-in account's token is read from where it
     * is kept (the first time only). Blocks (the keyring may ask to be unlocked).
     *
     * @return why the account cannot sync now (no token kept any more, its CA file unreadable): it
     *     then syncs without a token, so its next run ends signed out and the card says to sign in
     */
    public Optional<String> prepare(String user) {
        Optional<Entry> e = entry(user);
        if (e.isEmpty() || ready.contains(user)) {
            return Optional.empty();
        }
        Entry entry = e.get();
        if (entry.kind() == Kind.DEMO) {
            EmbeddedDemo.Started d = demo.start();
            runtime.useAccount(
                    user,
                    d.url(),
                    TransportSecurity.DEFAULT,
                    Optional.ofNullable(d.tokens().get(user)));
            ready.add(user);
            return Optional.empty();
        }
        Account account = entry.account().orElseThrow();
        Optional<String> problem = Optional.empty();
        Optional<String> token;
        try {
            token = Optional.of(service.token(account));
        } catch (KeyringException ex) {
            log.warn("no token for {}: {}", account.name(), ex.getMessage());
            token = Optional.empty();
            problem = Optional.of(ex.getMessage());
        }
        TransportSecurity transport;
        try {
            transport = account.transport();
        } catch (IllegalArgumentException ex) {
            log.warn("cannot reach {} safely: {}", account.name(), ex.getMessage());
            transport = TransportSecurity.DEFAULT;
            token = Optional.empty(); // never sent without the trust the account asked for
            problem = Optional.of(ex.getMessage());
        }
        try {
            runtime.useAccount(user, account.servers(), transport, token);
        } catch (IllegalArgumentException ex) {
            // plain http to another machine that the account never allowed (accounts.json edited by hand):
            // its runs go there without any token, so nothing secret crosses, and they end signed out
            runtime.useAccount(
                    user, account.servers(), TransportSecurity.load(Optional.empty(), true), Optional.empty());
            problem = Optional.of(ex.getMessage());
        }
        ready.add(user);
        return problem;
    }

    /**
     * Signs in ({@link AccountService#signIn}); when the server said yes, the account's runs go to its
     * server with the new token, its automatic triggers run again, and it is in the list (replacing
     * the demo's users, and an earlier entry of the same account). A run of the same user id that
     * talked to another server is cancelled first.
     */
    @Override
    public SignInResult signIn(SignInRequest r) {
        SignInResult result = service.signIn(r.servers(), r.user(), r.password(), r.device(), r.transport(), http);
        if (!(result instanceof SignInResult.SignedIn signedIn)) {
            return result;
        }
        Account account = signedIn.account();
        String token;
        try {
            token = service.token(account);
        } catch (KeyringException e) {
            return new SignInResult.Failed("signed in, but the session token cannot be read back from where it was "
                    + "kept: " + e.getMessage());
        }
        String user = account.user();
        if (!runtime.serversOf(user).equals(account.servers())
                || !runtime.transportOf(user).equals(r.transport())) {
            int n = runtime.coordinator()
                    .cancelUser(user, "the account " + user + " now syncs with " + account.server());
            if (n > 0) {
                log.info("cancelled {} run(s) of {} that talked to {}", n, user, runtime.serversOf(user));
            }
        }
        runtime.useAccount(user, account.servers(), r.transport(), Optional.of(token));
        ready.add(user);
        gate.signedIn(user);
        synchronized (this) {
            Entry next = Entry.of(account);
            int at = -1;
            for (int i = 0; i < entries.size(); i++) {
                if (entries.get(i).user().equals(user)) {
                    at = i;
                }
            }
            if (at >= 0) {
                entries.set(at, next);
            } else {
                entries.add(next);
            }
            entries.removeIf(e -> e.kind() == Kind.DEMO);
        }
        log.info("the window signed in as {}", account.name());
        return result;
    }

    /**
     * Signs {@code user} out: its automatic triggers stop and its runs are cancelled (fenced: they
     * write nothing more), then the server is told (best effort) and the token removed. When no account
     * is left, the demo's users are the list again (the embedded server is started if needed).
     *
     * @throws IllegalArgumentException when {@code user} is not a signed-in account of the list
     */
    public SignOut signOut(String user) {
        Entry e = entry(user)
                .filter(x -> x.kind() == Kind.SIGNED_IN)
                .orElseThrow(() -> new IllegalArgumentException(user + " is not signed in here"));
        gate.signedOut(user);
        int n = runtime.coordinator().cancelUser(user, "signed out");
        if (n > 0) {
            log.info("signing out {}: cancelled {} run(s)", user, n);
        }
        AccountService.SignOutResult result;
        try {
            result = service.signOut(e.account().orElseThrow(), http);
        } catch (LeasesyncException ex) {
            log.warn("could not sign out {}: {}", user, ex.getMessage());
            gate.signedIn(user); // still signed in here: it may sync again
            return new SignOut(Optional.empty(), entries(), Optional.of(ex.getMessage()));
        }
        runtime.forgetAccount(user);
        ready.remove(user);
        gate.signedIn(user); // the next account of this name (a demo user, a new sign-in) starts afresh
        Optional<String> problem = Optional.empty();
        boolean empty;
        synchronized (this) {
            entries.removeIf(x -> x.user().equals(user));
            empty = entries.isEmpty();
        }
        if (empty) {
            try {
                EmbeddedDemo.Started d = demo.start();
                List<Entry> demoUsers = new ArrayList<>();
                for (var t : d.tokens().entrySet()) {
                    runtime.useAccount(t.getKey(), d.url(), TransportSecurity.DEFAULT, Optional.of(t.getValue()));
                    ready.add(t.getKey());
                    demoUsers.add(new Entry(t.getKey(), Kind.DEMO, d.url(), Optional.empty()));
                }
                synchronized (this) {
                    entries.addAll(demoUsers);
                }
            } catch (RuntimeException ex) {
                log.warn("the embedded demo server could not be started: {}", ex.getMessage());
                problem = Optional.of(ex.getMessage() == null ? ex.toString() : ex.getMessage());
            }
        }
        return new SignOut(Optional.of(result), entries(), problem);
    }
}
