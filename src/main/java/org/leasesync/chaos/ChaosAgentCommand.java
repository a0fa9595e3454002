package org.leasesync.chaos;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.cli.DurationConverter;
import org.leasesync.client.ClientConfig;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;
import org.leasesync.sync.SyncSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code leasesync chaos-agent}: one client process driven by the chaos harness (hidden; see
 * {@link ChaosAgent} for its line protocol).
 */
@Command(
        name = "chaos-agent",
        hidden = true,
        mixinStandardHelpOptions = true,
        description = "A client process driven by `leasesync chaos` over standard input (not for direct use).")
public final class ChaosAgentCommand implements Callable<Integer> {

    @Option(names = "--data-dir", required = true, paramLabel = "DIR")
    Path dataDir;

    @Option(names = "--server", required = true, paramLabel = "URL")
    String server;

    @Option(names = "--token", required = true, paramLabel = "USER=TOKEN")
    Map<String, String> tokens;

    @Option(names = "--journal", required = true, paramLabel = "FILE")
    Path journalFile;

    @Option(names = "--lease-ttl", converter = DurationConverter.class, defaultValue = "3s", paramLabel = "DURATION")
    Duration leaseTtl;

    @Option(names = "--call-timeout", converter = DurationConverter.class, defaultValue = "2s", paramLabel = "DURATION")
    Duration callTimeout;

    @Override
    public Integer call() throws Exception {
        JumpableTime time = new JumpableTime(Clock.systemUTC());
        Duration connect = callTimeout.dividedBy(2);
        ClientConfig config = new ClientConfig(
                        dataDir,
                        server,
                        tokens,
                        leaseTtl,
                        new HttpSettings(connect, callTimeout, callTimeout),
                        new SyncSettings(20, 5, 6, Duration.ofMillis(100), Duration.ofHours(24)),
                        new RetryPolicy(Duration.ofMillis(300), Duration.ofSeconds(2), 3),
                        time)
                .withProgram("leasesync chaos-agent");
        try (Journal journal = new Journal(journalFile)) {
            return ChaosAgent.serve(config, time, journal, System.out);
        }
    }
}
