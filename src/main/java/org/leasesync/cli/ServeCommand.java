package org.leasesync.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.ServerTls;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.faults.Durations;
import org.leasesync.server.faults.FaultSpec;
import org.leasesync.server.jobs.JobSettings;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync serve}: runs the reference sync server (docs/protocol.md) until SIGTERM or
 * Ctrl-C.
 *
 * <p>Standard output, in this order: {@code listening on http://HOST:PORT} ({@code https://} with
 * {@code --tls-cert}; first line, flushed at once); with {@code --seed demo} only, then
 * {@code password USER PASSWORD} for alice, bob and admin ({@code unchanged} for an account that
 * existed before this start), {@code token USER TOKEN} for alice and bob, and {@code token admin
 * TOKEN} last. Without the demo nothing secret is printed. Standard
 * error gets one line naming the instance id and the database; logs go to the logging backend, not
 * to standard output. Exit codes: 0 after a clean shutdown, 1 if the server cannot start (port in
 * use, database locked or unreachable), 2 for bad options (picocli usage error).
 *
 * <p>{@link #call()} blocks until the process is told to stop; one instance serves one call.
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = "Run the reference sync server (protocol v1) until SIGTERM or Ctrl-C.")
public final class ServeCommand implements Callable<Integer> {

    /** The demo accounts whose passwords {@code --seed demo} prints, in order. */
    private static final List<String> DEMO_ACCOUNTS = List.of("alice", "bob", "admin");

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--port",
            paramLabel = "N",
            defaultValue = "" + ServerConfig.DEFAULT_PORT,
            description = "TCP port, 0..65535; 0 picks a free port (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(
            names = "--bind",
            paramLabel = "ADDR",
            defaultValue = ServerConfig.DEFAULT_BIND_ADDRESS,
            description = "Address to bind (default: ${DEFAULT-VALUE}, loopback only).")
    private String bind;

    @Mixin
    private ServerDbOptions database = new ServerDbOptions();

    @Option(
            names = "--seed",
            paramLabel = "demo|none",
            defaultValue = "none",
            converter = SeedConverter.class,
            description = "demo: accounts alice and bob with demo data and admin, each with a random password printed "
                    + "with a session token (idempotent); none: no accounts, print no password or token "
                    + "(default: ${DEFAULT-VALUE}).")
    private Seed seed;

    @Option(
            names = "--session-idle",
            paramLabel = "DURATION",
            defaultValue = "90d",
            converter = DurationConverter.class,
            description =
                    "A session not used for this long ends; its device signs in again (default: ${DEFAULT-VALUE}).")
    private Duration sessionIdle;

    @Option(
            names = "--tls-cert",
            paramLabel = "PEM",
            description =
                    "Listen with HTTPS: the server's certificate chain, PEM (the certificate first). Needs --tls-key.")
    private Path tlsCert;

    @Option(
            names = "--tls-key",
            paramLabel = "PEM",
            description = "The certificate's private key, PEM, unencrypted, RSA or EC (PKCS#8 BEGIN PRIVATE KEY, or "
                    + "BEGIN RSA/EC PRIVATE KEY). Keep it owner-only. Needs --tls-cert.")
    private Path tlsKey;

    @Option(
            names = "--fault",
            paramLabel = "SPEC",
            converter = FaultConverter.class,
            description = "Misbehave on purpose (repeatable): latency=DURATION, fail-push=N, "
                    + "drop-after-apply=N, delay-after-apply=DURATION, throttle=N.")
    private List<FaultSpec> faults = new ArrayList<>();

    @Option(
            names = "--key-retention",
            paramLabel = "DURATION",
            defaultValue = "24h",
            converter = DurationConverter.class,
            description = "How long completed pushes are remembered by idempotency key: 250ms, 2s, "
                    + "1m, 24h or ISO-8601 (default: ${DEFAULT-VALUE}).")
    private Duration keyRetention;

    @Option(
            names = "--audit",
            description = "Record every user request to the pull, push and push-status endpoints in the "
                    + "server's audit log, read through GET /v1/admin/audit (default: off).")
    private boolean audit;

    @Option(
            names = "--jobs",
            paramLabel = "on|off",
            defaultValue = "on",
            description = "Run the server's jobs by schedule (on) or only when asked through "
                    + "POST /v1/admin/jobs/NAME/run (off) (default: ${DEFAULT-VALUE}).")
    private String jobs;

    @Option(
            names = "--job-interval",
            paramLabel = "NAME=DURATION",
            converter = JobIntervalConverter.class,
            description = "A job's interval, or 'off' (repeatable). Jobs and defaults: expire-idempotency-keys=10m, "
                    + "prune-audit=1h, purge-tombstones=1h, release-stale-claims=1m.")
    private List<Map.Entry<String, Duration>> jobIntervals = new ArrayList<>();

    @Option(
            names = "--job-lease-ttl",
            paramLabel = "DURATION",
            defaultValue = "15s",
            converter = DurationConverter.class,
            description =
                    "TTL of a job's lease: a dead instance's job is taken over within it (default: ${DEFAULT-VALUE}).")
    private Duration jobLeaseTtl;

    @Option(
            names = "--audit-retention",
            paramLabel = "DURATION",
            defaultValue = "7d",
            converter = DurationConverter.class,
            description = "Audit rows older than this are deleted by the job prune-audit (default: ${DEFAULT-VALUE}).")
    private Duration auditRetention;

    @Option(
            names = "--tombstone-retention",
            paramLabel = "DURATION",
            defaultValue = "30d",
            converter = DurationConverter.class,
            description =
                    "Deleted records (tombstones) older than this are purged by the job purge-tombstones; a client "
                            + "whose cursor is older then pulls everything again (default: ${DEFAULT-VALUE}).")
    private Duration tombstoneRetention;

    /** Test only: rows per job batch. */
    @Option(names = "--job-batch-size", hidden = true, defaultValue = "" + JobSettings.DEFAULT_BATCH)
    private int jobBatchSize;

    /** Test only: runs of this job stop after their first batch until the server stops (crash tests). */
    @Option(names = "--job-pause", hidden = true, paramLabel = "NAME")
    private List<String> jobPause = new ArrayList<>();

    /**
     * The PostgreSQL driver logs through java.util.logging straight to standard error (e.g. a
     * warning before it refuses a malformed URL); {@code serve} reports such failures in its own one
     * line instead. Held here because java.util.logging keeps loggers only weakly.
     */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ServeCommand.class);

    private static final java.util.logging.Logger PGJDBC_LOG = java.util.logging.Logger.getLogger("org.postgresql");

    private final CountDownLatch stop = new CountDownLatch(1);
    private final Map<String, String> env;

    /** Creates the command; picocli fills in the options; credentials come from the process environment. */
    public ServeCommand() {
        this(System.getenv());
    }

    /** With another environment (tests). */
    ServeCommand(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    /**
     * Starts the server, prints the address (and the demo's passwords and tokens), and blocks until stopped.
     *
     * @return 0 after a clean shutdown, 1 if the server could not start
     * @throws ParameterException for invalid option values (picocli turns it into exit code 2)
     */
    @Override
    public Integer call() throws InterruptedException {
        ServerConfig cfg;
        try {
            cfg = new ServerConfig(
                    port,
                    bind,
                    database.database(env),
                    seed,
                    faults,
                    keyRetention,
                    Clock.systemUTC(),
                    audit,
                    jobs(),
                    sessionIdle,
                    tls());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PGJDBC_LOG.setLevel(java.util.logging.Level.SEVERE);
        ReferenceServer server;
        try {
            server = ReferenceServer.start(cfg);
        } catch (RuntimeException e) {
            PrintWriter failure = spec.commandLine().getErr();
            failure.println("serve: cannot start the server: " + e.getMessage());
            failure.flush();
            return 1;
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println("serve: instance " + server.instanceId() + " on "
                + cfg.database().describe());
        err.flush();
        Thread hook = new Thread(
                () -> {
                    // SIGTERM (systemd stop, kill) or Ctrl-C: stop taking requests, end the jobs, release their leases
                    err.println("serve: stopping (SIGTERM or Ctrl-C): instance " + server.instanceId());
                    err.flush();
                    LOG.info("stopping on a signal: instance {}", server.instanceId());
                    server.close();
                    err.println("serve: stopped cleanly");
                    err.flush();
                    LOG.info("stopped cleanly: instance {}", server.instanceId());
                    stop.countDown();
                },
                "sync-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        PrintWriter out = spec.commandLine().getOut();
        out.println("listening on " + server.baseUrl());
        out.flush();
        if (seed == Seed.DEMO) {
            // The demo's secrets, on purpose: a demo is for trying things out. Without --seed demo
            // nothing secret is printed, so nothing secret reaches the journal.
            Map<String, String> passwords = server.takeDemoPasswords();
            for (String user : DEMO_ACCOUNTS) {
                out.println("password " + user + " " + passwords.getOrDefault(user, "unchanged"));
            }
            for (String user : ReferenceServer.demoUsers()) {
                out.println("token " + user + " " + server.tokenFor(user));
            }
            out.println("token admin " + server.adminToken());
        }
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

    /**
     * The job settings the options choose.
     *
     * @throws IllegalArgumentException naming the bad option value
     */
    private JobSettings jobs() {
        if (!jobs.equals("on") && !jobs.equals("off")) {
            throw new IllegalArgumentException("--jobs must be on or off but was '" + jobs + "'");
        }
        JobSettings s = JobSettings.defaults()
                .withScheduled(jobs.equals("on"))
                .withLeaseTtl(jobLeaseTtl)
                .withAuditRetention(auditRetention)
                .withTombstoneRetention(tombstoneRetention)
                .withBatchSize(jobBatchSize)
                .withPauseAfterFirstBatch(new java.util.TreeSet<>(jobPause));
        for (Map.Entry<String, Duration> e : jobIntervals) {
            s = s.withInterval(e.getKey(), e.getValue());
        }
        return s;
    }

    /**
     * The TLS files the options name, loaded and checked, or null without them.
     *
     * @throws IllegalArgumentException for one without the other, or a file that cannot be used
     */
    private ServerTls tls() {
        if (tlsCert == null && tlsKey == null) {
            return null;
        }
        if (tlsCert == null || tlsKey == null) {
            throw new IllegalArgumentException(
                    tlsCert == null ? "--tls-key needs --tls-cert" : "--tls-cert needs --tls-key");
        }
        return ServerTls.load(tlsCert, tlsKey);
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

    /** {@code NAME=DURATION} or {@code NAME=off}, with a known job name. */
    static final class JobIntervalConverter implements CommandLine.ITypeConverter<Map.Entry<String, Duration>> {
        @Override
        public Map.Entry<String, Duration> convert(String value) {
            int eq = value.indexOf('=');
            if (eq < 0) {
                throw new CommandLine.TypeConversionException(
                        "expected NAME=DURATION or NAME=off but was '" + value + "'");
            }
            try {
                String name = JobSettings.knownName(value.substring(0, eq));
                String d = value.substring(eq + 1);
                return Map.entry(name, d.equals("off") ? JobSettings.OFF : Durations.parse(d));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
