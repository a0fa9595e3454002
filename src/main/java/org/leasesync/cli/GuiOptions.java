package org.leasesync.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;

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
 *     ({@code --server}, {@code --schedule-interval}, {@code --foreground-min-interval}); these win
 *     over the settings file for this launch, the others come from the file when it sets them
 */
public record GuiOptions(Path dataDir, Optional<ServerUrls> server, Optional<String> user, Optional<String> token,
                         Duration leaseTtl, HttpSettings http, Duration scheduleInterval,
                         Duration foregroundMinInterval, Duration dbOpenTimeout, java.util.Set<String> given) {

    public GuiOptions {
        given = java.util.Set.copyOf(given);
    }

    /** With nothing given explicitly. */
    public GuiOptions(Path dataDir, Optional<ServerUrls> server, Optional<String> user, Optional<String> token,
                      Duration leaseTtl, HttpSettings http, Duration scheduleInterval, Duration foregroundMinInterval,
                      Duration dbOpenTimeout) {
        this(dataDir, server, user, token, leaseTtl, http, scheduleInterval, foregroundMinInterval, dbOpenTimeout,
                java.util.Set.of());
    }

    /** With the default database open timeout. */
    public GuiOptions(Path dataDir, Optional<ServerUrls> server, Optional<String> user, Optional<String> token,
                      Duration leaseTtl, HttpSettings http, Duration scheduleInterval, Duration foregroundMinInterval) {
        this(dataDir, server, user, token, leaseTtl, http, scheduleInterval, foregroundMinInterval,
                org.leasesync.store.h2.OpenRetries.DEFAULT_OPEN_TIMEOUT);
    }
}
