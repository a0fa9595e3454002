package org.leasesync.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunOrigin;
import org.leasesync.store.Database;
import org.leasesync.store.h2.OpenRetries;
import org.leasesync.sync.SyncSettings;

/**
 * Everything a client process is configured with. Immutable; validated in the constructor.
 *
 * @param dataDir the data directory (local database and logs)
 * @param servers the sync server, or the instances of a cluster serving the same data, in order of
 *     preference (a request that certainly did nothing on one goes to the next; see {@link ServerUrls})
 * @param tokens bearer token per user id
 * @param leaseTtl lease TTL
 * @param http HTTP timeouts
 * @param sync sync tuning
 * @param retry automatic retries after a failed run ({@link RetryPolicy#NONE} for one-shot commands)
 * @param time the time source
 * @param dbOpenTimeout how long opening the local database waits for a process that holds it but does
 *     not answer ({@link Database#openFile(Path, Duration)})
 * @param program what this process is, recorded with every run it starts ({@link RunOrigin#program()}):
 *     {@code leasesync window}, {@code leasesync sync}, …; 1-100 characters
 * @param transport plain http to other machines or not, and the CA file HTTPS trusts besides the
 *     system's authorities; checked against {@code servers} here
 */
public record ClientConfig(
        Path dataDir,
        ServerUrls servers,
        Map<String, String> tokens,
        Duration leaseTtl,
        HttpSettings http,
        SyncSettings sync,
        RetryPolicy retry,
        TimeSource time,
        Duration dbOpenTimeout,
        String program,
        TransportSecurity transport) {

    /** The program name when none is given. */
    public static final String DEFAULT_PROGRAM = "leasesync";

    /** With {@link TransportSecurity#DEFAULT}. */
    public ClientConfig(
            Path dataDir,
            ServerUrls servers,
            Map<String, String> tokens,
            Duration leaseTtl,
            HttpSettings http,
            SyncSettings sync,
            RetryPolicy retry,
            TimeSource time,
            Duration dbOpenTimeout,
            String program) {
        this(
                dataDir,
                servers,
                tokens,
                leaseTtl,
                http,
                sync,
                retry,
                time,
                dbOpenTimeout,
                program,
                TransportSecurity.DEFAULT);
    }

    /** As {@link #DEFAULT_PROGRAM}. */
    public ClientConfig(
            Path dataDir,
            ServerUrls servers,
            Map<String, String> tokens,
            Duration leaseTtl,
            HttpSettings http,
            SyncSettings sync,
            RetryPolicy retry,
            TimeSource time,
            Duration dbOpenTimeout) {
        this(dataDir, servers, tokens, leaseTtl, http, sync, retry, time, dbOpenTimeout, DEFAULT_PROGRAM);
    }

    /**
     * @param serverUrls one URL, or several separated by commas ({@link ServerUrls#parse})
     * @throws IllegalArgumentException naming the bad URL or setting
     */
    public ClientConfig(
            Path dataDir,
            String serverUrls,
            Map<String, String> tokens,
            Duration leaseTtl,
            HttpSettings http,
            SyncSettings sync,
            RetryPolicy retry,
            TimeSource time,
            Duration dbOpenTimeout) {
        this(dataDir, ServerUrls.parse(serverUrls), tokens, leaseTtl, http, sync, retry, time, dbOpenTimeout);
    }

    /** With the default database open timeout. */
    public ClientConfig(
            Path dataDir,
            String serverUrls,
            Map<String, String> tokens,
            Duration leaseTtl,
            HttpSettings http,
            SyncSettings sync,
            RetryPolicy retry,
            TimeSource time) {
        this(dataDir, serverUrls, tokens, leaseTtl, http, sync, retry, time, OpenRetries.DEFAULT_OPEN_TIMEOUT);
    }

    /** @throws IllegalArgumentException naming the bad setting (a plain http:// URL to another machine too) */
    public ClientConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(servers, "servers");
        Objects.requireNonNull(transport, "transport");
        transport.check(servers);
        tokens = Map.copyOf(tokens);
        tokens.forEach(ClientConfig::checkToken);
        TaskRegistry.validateTtl(leaseTtl);
        Objects.requireNonNull(http, "http");
        if (http.call().compareTo(leaseTtl.multipliedBy(9).dividedBy(10)) >= 0) {
            throw new IllegalArgumentException("--call-timeout (" + DurationText.format(http.call())
                    + ") must be shorter than 90% of --lease-ttl (" + DurationText.format(leaseTtl)
                    + "), so that no request of a run outlives its lease");
        }
        Objects.requireNonNull(sync, "sync");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(time, "time");
        OpenRetries.validateOpenTimeout(dbOpenTimeout);
        Objects.requireNonNull(program, "program");
        if (program.isBlank() || program.length() > RunOrigin.MAX_PROGRAM) {
            throw new IllegalArgumentException(
                    "the program name must be 1-" + RunOrigin.MAX_PROGRAM + " characters, got '" + program + "'");
        }
    }

    /** The same configuration for a process that calls itself {@code program}. */
    public ClientConfig withProgram(String program) {
        return new ClientConfig(
                dataDir, servers, tokens, leaseTtl, http, sync, retry, time, dbOpenTimeout, program, transport);
    }

    /** The same configuration with these tokens (a token read from the keyring once the command runs). */
    public ClientConfig withTokens(Map<String, String> tokens) {
        return new ClientConfig(
                dataDir, servers, tokens, leaseTtl, http, sync, retry, time, dbOpenTimeout, program, transport);
    }

    /** The same configuration with {@code transport} (checked against the servers). */
    public ClientConfig withTransport(TransportSecurity transport) {
        return new ClientConfig(
                dataDir, servers, tokens, leaseTtl, http, sync, retry, time, dbOpenTimeout, program, transport);
    }

    /** Never the tokens: which users have one. */
    @Override
    public String toString() {
        return "ClientConfig[dataDir=" + dataDir + ", servers=" + servers + ", tokens for " + tokens.keySet()
                + ", leaseTtl=" + leaseTtl + ", http=" + http + ", sync=" + sync + ", retry=" + retry + ", program="
                + program + ", transport=" + transport + "]";
    }

    /** What runs of this process record as their origin: the program and the configured server(s). */
    public RunOrigin origin() {
        return origin(program, servers);
    }

    /** What runs of {@code program} against {@code servers} record as their origin (a long list shortened). */
    public static RunOrigin origin(String program, ServerUrls servers) {
        String server = servers.toString();
        if (server.length() > RunOrigin.MAX_SERVER) {
            server = server.substring(0, RunOrigin.MAX_SERVER - 1) + "…";
        }
        return new RunOrigin(program, server);
    }

    /**
     * A bearer token goes into an HTTP header, which takes visible ASCII only (RFC 6750's b64token is
     * a subset): a control character or a non-ASCII one is refused here, before anything is touched,
     * instead of failing the run at its first request. The token itself is never echoed.
     */
    private static void checkToken(String user, String token) {
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new IllegalArgumentException("the token of " + user + " has "
                        + (c < 0x20 || c == 0x7f
                                ? "a control character"
                                : c == ' ' ? "a space" : "a non-ASCII character")
                        + " at position " + (i + 1) + "; a bearer token is visible ASCII only (RFC 6750)");
            }
        }
    }
}
