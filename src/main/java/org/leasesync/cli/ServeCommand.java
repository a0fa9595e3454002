package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.leasesync.server.Durations;
import org.leasesync.server.FaultSpec;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.Seed;
import org.leasesync.server.ServerConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync serve}: runs the reference sync server (docs/protocol.md) until SIGTERM or
 * Ctrl-C.
 *
 * <p>Standard output, in this order: {@code listening on http://HOST:PORT} (first line, flushed
 * at once), then {@code token USER TOKEN} per seeded user, then {@code token admin TOKEN}. Logs go
 * to the logging backend, not to standard output. Exit codes: 0 after a clean shutdown, 1 if the
 * server cannot start (port in use, database locked), 2 for bad options (picocli usage error).
 *
 * <p>{@link #call()} blocks until the process is told to stop; one instance serves one call.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the reference sync server (protocol v1) until SIGTERM or Ctrl-C.")
public final class ServeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--port", paramLabel = "N", defaultValue = "" + ServerConfig.DEFAULT_PORT,
            description = "TCP port, 0..65535; 0 picks a free port (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = ServerConfig.DEFAULT_BIND_ADDRESS,
            description = "Address to bind (default: ${DEFAULT-VALUE}, loopback only).")
    private String bind;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Directory for the server's database file; in-memory when absent.")
    private Path dataDir;

    @Option(names = "--seed", paramLabel = "demo|none", defaultValue = "demo", converter = SeedConverter.class,
            description = "demo: users alice and bob with demo data (idempotent); none: no users "
                    + "(default: ${DEFAULT-VALUE}).")
    private Seed seed;

    @Option(names = "--fault", paramLabel = "SPEC", converter = FaultConverter.class,
            description = "Misbehave on purpose (repeatable): latency=DURATION, fail-push=N, "
                    + "drop-after-apply=N, delay-after-apply=DURATION, throttle=N.")
    private List<FaultSpec> faults = new ArrayList<>();

    @Option(names = "--key-retention", paramLabel = "DURATION", defaultValue = "24h",
            converter = DurationConverter.class,
            description = "How long completed pushes are remembered by idempotency key: 250ms, 2s, "
                    + "1m, 24h or ISO-8601 (default: ${DEFAULT-VALUE}).")
    private Duration keyRetention;

    @Option(names = "--audit",
            description = "Record every user request to the pull, push and push-status endpoints in the "
                    + "server's audit log, read through GET /v1/admin/audit (default: off).")
    private boolean audit;

    private final CountDownLatch stop = new CountDownLatch(1);

    /** Creates the command; picocli fills in the options. */
    public ServeCommand() {
    }

    /**
     * Starts the server, prints the address and tokens, and blocks until stopped.
     *
     * @return 0 after a clean shutdown, 1 if the server could not start
     * @throws ParameterException for invalid option values (picocli turns it into exit code 2)
     */
    @Override
    public Integer call() throws InterruptedException {
        ServerConfig cfg;
        try {
            cfg = new ServerConfig(port, bind, dataDir, seed, faults, keyRetention, Clock.systemUTC(), audit);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        ReferenceServer server;
        try {
            server = ReferenceServer.start(cfg);
        } catch (RuntimeException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("serve: cannot start the server: " + e.getMessage());
            err.flush();
            return 1;
        }
        Thread hook = new Thread(() -> {
            server.close();
            stop.countDown();
        }, "sync-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        PrintWriter out = spec.commandLine().getOut();
        out.println("listening on " + server.baseUrl());
        out.flush();
        if (seed == Seed.DEMO) {
            for (String user : ReferenceServer.demoUsers()) {
                out.println("token " + user + " " + server.tokenFor(user));
            }
        }
        out.println("token admin " + server.adminToken());
        out.flush();
        try {
            stop.await();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run; it closes the server
            }
            server.close();
        }
        return 0;
    }

    /** Makes a running {@link #call()} return (for tests and embedding). Never blocks. */
    void stop() {
        stop.countDown();
    }

    static final class SeedConverter implements CommandLine.ITypeConverter<Seed> {
        @Override
        public Seed convert(String value) {
            try {
                return Seed.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    static final class FaultConverter implements CommandLine.ITypeConverter<FaultSpec> {
        @Override
        public FaultSpec convert(String value) {
            try {
                return FaultSpec.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
