package org.leasesync.desktop;

import java.util.Objects;
import java.util.Optional;
import org.leasesync.client.AccountService;
import org.leasesync.client.SignInResult;
import org.leasesync.lease.LeasesyncException;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the token an older version's settings dialog kept in {@code settings.json}, in clear, out of
 * that file. The token becomes a signed-in account ({@link AccountService#adopt}: the keyring, else
 * the owner-only token file), rather than being dropped, because such a token may be the only way the
 * user has in: accounts from before passwords (a token the operator handed out, kept as a session
 * when the server gained accounts) cannot sign in with a password. Dropped instead: an entry the
 * transport rules refuse (plain http to another machine — the token would cross the network in
 * clear), or one too broken to use (no user, no token, a bad URL). Every other setting is kept as it
 * was. When the token cannot be kept anywhere, the entry stays and the next start tries again.
 *
 * <p>Runs once per window start, before the window reads its settings; blocks (session bus, a
 * keyring prompt, small files).
 */
public final class LegacyServerMove {

    private static final Logger log = LoggerFactory.getLogger(LegacyServerMove.class);

    private LegacyServerMove() {}

    /** What became of the entry. */
    public enum Outcome {
        /** The token is now a signed-in account's; the entry is gone from the file. */
        MOVED,
        /** The entry was removed without keeping its token ({@link Result#reason()} says why). */
        DROPPED,
        /** The token could not be kept anywhere: the entry stays for the next start. */
        KEPT
    }

    /**
     * @param outcome what became of it
     * @param name "bob on https://sync.example.org/", or the entry as far as it could be read
     * @param keptIn for {@link Outcome#MOVED}: where the token is now
     * @param reason for {@link Outcome#DROPPED} and {@link Outcome#KEPT}: why (from the lower layers, English)
     */
    public record Result(Outcome outcome, String name, Optional<String> keptIn, Optional<String> reason) {
        public Result {
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(keptIn, "keptIn");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Moves the entry of {@code dataDir}'s {@code settings.json}, if it has one. */
    public static Optional<Result> run(java.nio.file.Path dataDir, AccountService accounts) {
        Optional<SettingsFile.LegacyServer> found = SettingsFile.legacyServer(dataDir);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        SettingsFile.LegacyServer legacy = found.get();
        String user = legacy.user().orElse("?");
        String name = user + " on " + String.join(", ", legacy.urls());
        Result result;
        try {
            if (legacy.user().isEmpty() || legacy.token().isEmpty()) {
                throw new IllegalArgumentException(
                        "the entry has no " + (legacy.user().isEmpty() ? "user" : "token"));
            }
            ServerUrls servers = ServerUrls.parse(String.join(",", legacy.urls()));
            name = user + " on " + ServerUrls.display(servers.first());
            SignInResult.SignedIn kept =
                    accounts.adopt(servers, user, legacy.token().get(), TransportSecurity.DEFAULT);
            result = new Result(Outcome.MOVED, kept.account().name(), Optional.of(kept.keptIn()), Optional.empty());
        } catch (IllegalArgumentException e) {
            result = new Result(Outcome.DROPPED, name, Optional.empty(), Optional.of(e.getMessage()));
        } catch (LeasesyncException e) {
            log.warn("could not keep the token of {} from settings.json elsewhere: {}", name, e.getMessage());
            return Optional.of(new Result(Outcome.KEPT, name, Optional.empty(), Optional.of(e.getMessage())));
        }
        try {
            SettingsFile.dropLegacyServer(dataDir);
        } catch (LeasesyncException e) {
            log.warn("could not remove the server entry from settings.json: {}", e.getMessage());
            return Optional.of(new Result(Outcome.KEPT, name, result.keptIn(), Optional.of(e.getMessage())));
        }
        log.info(
                "settings.json's server entry for {}: {}{}",
                name,
                result.outcome(),
                result.reason().map(r -> " (" + r + ")").orElse(""));
        return Optional.of(result);
    }
}
