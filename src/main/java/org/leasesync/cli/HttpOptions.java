package org.leasesync.cli;

import java.time.Duration;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import picocli.CommandLine.Option;

/** HTTP timeout options shared by the commands that talk to a server. */
public final class HttpOptions {

    @Option(
            names = "--connect-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_CONNECT_TIMEOUT:-3s}",
            description = "TCP connect timeout, 1ms..10m. Default: $LEASESYNC_CONNECT_TIMEOUT, else 3s.")
    Duration connect;

    @Option(
            names = "--read-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_READ_TIMEOUT:-30s}",
            description = "Read timeout per response, 1ms..10m. Default: $LEASESYNC_READ_TIMEOUT, else 30s.")
    Duration read;

    @Option(
            names = "--call-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_CALL_TIMEOUT:-45s}",
            description =
                    "Whole-call timeout (trying further --server URLs included), 1ms..10m, under 90%% of the lease TTL. Default: $LEASESYNC_CALL_TIMEOUT, else 45s.")
    Duration call;

    /** What {@code --server} means, for the commands' help. */
    static final String SERVER_HELP = "Sync server base URL, or several separated by commas (instances of one "
            + "cluster serving the same data, at most 16): the first is used until it cannot be reached or answers 503, "
            + "then the next one, which stays in use.";

    /**
     * Checks a {@code --server} value: one http(s) URL or several separated by commas.
     *
     * @throws IllegalArgumentException naming the option and the bad entry
     */
    static ServerUrls checkServer(String urls) {
        try {
            return ServerUrls.parse(urls);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --server: " + e.getMessage());
        }
    }

    /** @throws IllegalArgumentException if a timeout is out of range */
    public HttpSettings settings() {
        try {
            return new HttpSettings(connect, read, call);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("HTTP timeouts must be between 1ms and 10m, got --connect-timeout "
                    + DurationConverter.format(connect) + ", --read-timeout " + DurationConverter.format(read)
                    + ", --call-timeout " + DurationConverter.format(call));
        }
    }
}
