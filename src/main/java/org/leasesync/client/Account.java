package org.leasesync.client;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.keyring.TokenSlot;
import org.leasesync.keyring.TokenVault;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;

/**
 * A signed-in account as {@code accounts.json} remembers it: the server, the user and how to reach
 * the server safely — never the token, which is kept where {@link #tokenPlace()} says. Immutable.
 *
 * @param servers the server URL(s), as given to {@code login --server}
 * @param user the user id
 * @param caFile the CA file HTTPS trusts besides the system's authorities, if one was given
 * @param allowInsecureHttp plain http to another machine was allowed at sign-in
 * @param tokenPlace where the session token is kept
 * @param signedInAt when the user signed in (wall clock, for display)
 */
public record Account(
        ServerUrls servers,
        String user,
        Optional<Path> caFile,
        boolean allowInsecureHttp,
        TokenVault.Place tokenPlace,
        Instant signedInAt) {

    /** @throws IllegalArgumentException for a user id the protocol cannot carry */
    public Account {
        Objects.requireNonNull(servers, "servers");
        HttpSyncRemote.checkProtocolUserId(user);
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(tokenPlace, "tokenPlace");
        Objects.requireNonNull(signedInAt, "signedInAt");
    }

    /** The account's first server URL, which names it with the user (no user info, query or fragment). */
    public String server() {
        return ServerUrls.display(servers.first());
    }

    /** Where its token is in the keyring or the file: {@code server=<first URL>}, {@code user=<user>}. */
    public TokenSlot slot() {
        return new TokenSlot(server(), user);
    }

    /** Whether this is the account of {@code user} on a server whose first URL is {@code server}'s first. */
    public boolean isOf(String user, ServerUrls server) {
        return this.user.equals(user) && server().equals(ServerUrls.display(server.first()));
    }

    /**
     * How to reach its server: the CA file read again (it may have been renewed since sign-in).
     *
     * @throws IllegalArgumentException naming the CA file when it can no longer be read
     */
    public TransportSecurity transport() {
        return TransportSecurity.load(caFile, allowInsecureHttp);
    }

    /** "alice on https://sync.example.org/". */
    public String name() {
        return user + " on " + server();
    }
}
