package org.leasesync.cli;

import java.time.Duration;
import org.leasesync.remote.HttpSettings;
import picocli.CommandLine.Option;

/** HTTP timeout options shared by the commands that talk to a server. */
public final class HttpOptions {

    @Option(names = "--connect-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_CONNECT_TIMEOUT:-5s}", description = "TCP connect timeout (default 5s).")
    Duration connect;

    @Option(names = "--read-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_READ_TIMEOUT:-30s}", description = "Read timeout per response (default 30s).")
    Duration read;

    @Option(names = "--call-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_CALL_TIMEOUT:-60s}", description = "Whole-call timeout (default 60s).")
    Duration call;

    /** @throws IllegalArgumentException if a timeout is out of range */
    public HttpSettings settings() {
        return new HttpSettings(connect, read, call);
    }
}
