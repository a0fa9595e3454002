package org.leasesync.cli;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.client.Account;
import org.leasesync.client.AccountService;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;

/**
 * Which server, user and token a command talks with: a token given for this run ({@link TokenOptions})
 * with {@code --server} and {@code --user}, as scripts always did; else a signed-in account — the only
 * one, or the one {@code --user} (and {@code --server}) names. Stateless.
 */
final class ServerChoice {

    private ServerChoice() {}

    /**
     * What was chosen.
     *
     * @param servers the server URL(s)
     * @param user the user id
     * @param transport plain http allowed or not, the CA file
     * @param token the token given for this run; empty when it is the account's
     * @param account the signed-in account used; empty when a token was given
     */
    record Chosen(
            ServerUrls servers,
            String user,
            TransportSecurity transport,
            Optional<String> token,
            Optional<Account> account) {
        Chosen {
            Objects.requireNonNull(servers, "servers");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(account, "account");
        }

        /**
         * The token: the one given, else the account's from where it is kept. Blocks (the keyring).
         *
         * @throws org.leasesync.keyring.KeyringException when the account's token cannot be read
         */
        String token(AccountService accounts) {
            return token.orElseGet(() -> accounts.token(account.orElseThrow()));
        }

        /** Never the token. */
        @Override
        public String toString() {
            return "Chosen[" + servers + ", " + user + ", "
                    + account.map(Account::name).orElse("token given") + "]";
        }
    }

    /**
     * Chooses. Reads the token file or standard input when told to, and the accounts file; blocks on
     * small reads. Writes nothing.
     *
     * @param server the {@code --server} text, or null
     * @param user the {@code --user} text, or null
     * @throws IllegalArgumentException naming the option or the accounts (a usage error): a token without
     *     {@code --server}, {@code --server} with a token but no {@code --user}, no account or several
     */
    static Chosen choose(
            Path dataDir,
            String server,
            String user,
            TokenOptions tokens,
            TransportOptions transportOptions,
            Map<String, String> env,
            InputStream stdin) {
        if (user != null) {
            try {
                org.leasesync.lease.TaskKey.validateUserId(user);
                HttpSyncRemote.checkProtocolUserId(user);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid --user: " + e.getMessage());
            }
        }
        Optional<ServerUrls> servers = server == null ? Optional.empty() : Optional.of(HttpOptions.checkServer(server));
        if (tokens.given() && servers.isEmpty()) {
            throw new IllegalArgumentException(
                    "a token given with --token, --token-file or --token-stdin needs --server "
                            + "(and --user); without them the signed-in account is used");
        }
        // $LEASESYNC_TOKEN goes with --server only: without it, the signed-in account is meant
        Optional<String> token = servers.isEmpty() ? Optional.empty() : tokens.read(env, stdin);
        if (token.isPresent()) {
            if (user == null) {
                throw new IllegalArgumentException("--server with a token needs --user");
            }
            TransportSecurity transport = transportOptions.load();
            check(transport, servers.get());
            return new Chosen(servers.get(), user, transport, token, Optional.empty());
        }
        Account account;
        try {
            account = new AccountService(dataDir, env, org.leasesync.lease.TimeSource.system())
                    .choose(Optional.ofNullable(user), servers);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    servers.isPresent() && user != null
                            ? "--server needs a token (--token-file, --token-stdin, $LEASESYNC_TOKEN or --token) or a signed-in "
                                    + "account on it: " + e.getMessage()
                            : e.getMessage());
        }
        TransportSecurity transport;
        try {
            transport = transportOptions.given() ? transportOptions.load() : account.transport();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the account " + account.name() + " cannot be used: " + e.getMessage());
        }
        check(transport, account.servers());
        return new Chosen(
                servers.orElse(account.servers()), account.user(), transport, Optional.empty(), Optional.of(account));
    }

    private static void check(TransportSecurity transport, ServerUrls servers) {
        try {
            transport.check(servers);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("refusing --server " + e.getMessage());
        }
    }
}
