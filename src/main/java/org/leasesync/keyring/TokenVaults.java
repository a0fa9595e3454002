package org.leasesync.keyring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Opens the place a token is kept: the desktop keyring when a Secret Service answers, else the file. Stateless. */
public final class TokenVaults {

    /** How long a keyring's unlock prompt is waited for. */
    public static final Duration PROMPT_TIMEOUT = Duration.ofMinutes(2);

    private TokenVaults() {}

    /**
     * An opened place, and why it is not the keyring when it is the file.
     *
     * @param vault the place (the caller closes it)
     * @param whyNotKeyring for the file: why no keyring could be used, for the user
     */
    public record Opened(TokenVault vault, Optional<String> whyNotKeyring) {
        public Opened {
            Objects.requireNonNull(vault, "vault");
            Objects.requireNonNull(whyNotKeyring, "whyNotKeyring");
        }
    }

    /**
     * The keyring on the session bus of {@code env} when a Secret Service answers there, else the
     * file in {@code dataDir}. Blocks (connects to the bus; the bus may start the keyring daemon).
     */
    public static Opened forNewToken(Path dataDir, Map<String, String> env) {
        Optional<String> bus = SessionBus.address(env);
        if (bus.isEmpty()) {
            return new Opened(new TokenFile(dataDir), Optional.of("no session bus (" + SessionBus.NONE + ")"));
        }
        try {
            return new Opened(SecretServiceVault.connect(bus.get(), PROMPT_TIMEOUT), Optional.empty());
        } catch (KeyringUnavailableException e) {
            return new Opened(new TokenFile(dataDir), Optional.of(e.getMessage()));
        }
    }

    /**
     * The place a token was kept in. Blocks.
     *
     * @throws KeyringUnavailableException for the keyring when no Secret Service answers now
     */
    public static TokenVault open(TokenVault.Place place, Path dataDir, Map<String, String> env) {
        if (place == TokenVault.Place.FILE) {
            return new TokenFile(dataDir);
        }
        String bus = SessionBus.address(env)
                .orElseThrow(() -> new KeyringUnavailableException(
                        "the token is in the desktop keyring, and there is no session bus here (" + SessionBus.NONE
                                + ")"));
        return SecretServiceVault.connect(bus, PROMPT_TIMEOUT);
    }
}
