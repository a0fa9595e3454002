package org.leasesync.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.leasesync.registry.RetryPolicy;
import org.leasesync.registry.TaskRegistry;
import org.leasesync.registry.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.store.Database;
import org.leasesync.sync.SyncSettings;

/**
 * Everything a client process is configured with. Immutable; validated in the constructor.
 *
 * @param dataDir the data directory (local database and logs)
 * @param serverUrl the sync server
 * @param tokens bearer token per user id
 * @param leaseTtl lease TTL
 * @param http HTTP timeouts
 * @param sync sync tuning
 * @param retry automatic retries after a failed run ({@link RetryPolicy#NONE} for one-shot commands)
 * @param time the time source
 * @param dbOpenTimeout how long opening the local database waits for a process that holds it but does
 *     not answer ({@link Database#openFile(Path, Duration)})
 */
public record ClientConfig(Path dataDir, String serverUrl, Map<String, String> tokens, Duration leaseTtl,
                           HttpSettings http, SyncSettings sync, RetryPolicy retry, TimeSource time,
                           Duration dbOpenTimeout) {

    /** With the default database open timeout. */
    public ClientConfig(Path dataDir, String serverUrl, Map<String, String> tokens, Duration leaseTtl,
                        HttpSettings http, SyncSettings sync, RetryPolicy retry, TimeSource time) {
        this(dataDir, serverUrl, tokens, leaseTtl, http, sync, retry, time, Database.DEFAULT_OPEN_TIMEOUT);
    }

    public ClientConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        org.leasesync.remote.HttpSyncRemote.parseBase(serverUrl);
        tokens = Map.copyOf(tokens);
        TaskRegistry.validateTtl(leaseTtl);
        Objects.requireNonNull(http, "http");
        if (http.call().compareTo(leaseTtl.multipliedBy(9).dividedBy(10)) >= 0) {
            throw new IllegalArgumentException("--call-timeout (" + DurationConverter.format(http.call())
                    + ") must be shorter than 90% of --lease-ttl (" + DurationConverter.format(leaseTtl)
                    + "), so that no request of a run outlives its lease");
        }
        Objects.requireNonNull(sync, "sync");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(time, "time");
        Database.validateOpenTimeout(dbOpenTimeout);
    }
}
