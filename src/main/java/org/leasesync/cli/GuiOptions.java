package org.leasesync.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.leasesync.client.Account;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;

/**
 * What the window is started with when no subcommand is given. Validated by the command.
 *
 * @param dataDir the resolved data directory
 * @param server the sync server URL(s), or empty to start the embedded reference server with demo data
 * @param user the user to sign in as (with {@code server})
 * @param token the user's bearer token (with {@code server})
 * @param leaseTtl lease TTL
 * @param http HTTP timeouts
 * @param scheduleInterval the timer trigger's interval
 * @param foregroundMinInterval minimum time since a key's last successful sync for a foreground sync
 * @param dbOpenTimeout how long opening the local database waits for a holder that does not answer
 * @param given the window's options given on the command line or by their environment variable
 *     ({@code --server}, {@code --schedule-interval}, {@code --foreground-min-interval}), and
 *     {@code account} for a start from a signed-in account; these win over the settings file for this
 *     launch, the others come from the file when it sets them
 * @param transport with {@code server}: plain http to another machine allowed or not, the CA file
 * @param account the signed-in account the window starts with (its servers and user are {@code server}
 *     and {@code user}; its token is read from the keyring just before the window starts)
 */
public record GuiOptions(
        Path dataDir,
        Optional<ServerUrls> server,
        Optional<String> user,
        Optional<String> token,
        Duration leaseTtl,
        HttpSettings http,
        Duration scheduleInterval,
        Duration foregroundMinInterval,
        Duration dbOpenTimeout,
        java.util.Set<String> given,
        TransportSecurity transport,
        Optional<Account> account) {

    public GuiOptions {
        given = java.util.Set.copyOf(given);
        java.util.Objects.requireNonNull(transport, "transport");
        java.util.Objects.requireNonNull(account, "account");
    }

    /** With {@link TransportSecurity#DEFAULT} and no account. */
    public GuiOptions(
            Path dataDir,
            Optional<ServerUrls> server,
            Optional<String> user,
            Optional<String> token,
            Duration leaseTtl,
            HttpSettings http,
            Duration scheduleInterval,
            Duration foregroundMinInterval,
            Duration dbOpenTimeout,
            java.util.Set<String> given) {
        this(
                dataDir,
                server,
                user,
                token,
                leaseTtl,
                http,
                scheduleInterval,
                foregroundMinInterval,
                dbOpenTimeout,
                given,
                TransportSecurity.DEFAULT,
                Optional.empty());
    }

    /** The same options with the account's token. */
    public GuiOptions withToken(String token) {
        return new GuiOptions(
                dataDir,
                server,
                user,
                Optional.of(token),
                leaseTtl,
                http,
                scheduleInterval,
                foregroundMinInterval,
                dbOpenTimeout,
                given,
                transport,
                account);
    }

    /** Never the token. */
    @Override
    public String toString() {
        return "GuiOptions[dataDir=" + dataDir + ", server=" + server + ", user=" + user + ", token="
                + token.map(t -> "(hidden)").orElse("none") + ", given=" + given + ", account="
                + account.map(Account::name).orElse("none") + "]";
    }

    /** With nothing given explicitly. */
    public GuiOptions(
            Path dataDir,
            Optional<ServerUrls> server,
            Optional<String> user,
            Optional<String> token,
            Duration leaseTtl,
            HttpSettings http,
            Duration scheduleInterval,
            Duration foregroundMinInterval,
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
                dbOpenTimeout,
                java.util.Set.of());
    }

    /** With the default database open timeout. */
    public GuiOptions(
            Path dataDir,
            Optional<ServerUrls> server,
            Optional<String> user,
            Optional<String> token,
            Duration leaseTtl,
            HttpSettings http,
            Duration scheduleInterval,
            Duration foregroundMinInterval) {
        this(
                dataDir,
                server,
                user,
                token,
                leaseTtl,
                http,
                scheduleInterval,
                foregroundMinInterval,
                org.leasesync.store.h2.OpenRetries.DEFAULT_OPEN_TIMEOUT);
    }
}
