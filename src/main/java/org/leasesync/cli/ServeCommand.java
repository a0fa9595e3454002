package org.leasesync.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.leasesync.server.faults.Durations;
import org.leasesync.server.faults.FaultSpec;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.store.ServerDatabaseConfig;
import org.leasesync.server.jobs.JobSettings;
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
 * at once), then {@code token USER TOKEN} per seeded user, then {@code token admin TOKEN}. Standard
 * error gets one line naming the instance id and the database; logs go to the logging backend, not
 * to standard output. Exit codes: 0 after a clean shutdown, 1 if the server cannot start (port in
 * use, database locked or unreachable), 2 for bad options (picocli usage error).
 *
 * <p>{@link #call()} blocks until the process is told to stop; one instance serves one call.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the reference sync server (protocol v1) until SIGTERM or Ctrl-C.")
public final class ServeCommand implements Callable<Integer> {

    /** The environment variables of {@code --db}'s credentials. */
    static final String DB_USER = "LEASESYNC_DB_USER";
    static final String DB_PASSWORD = "LEASESYNC_DB_PASSWORD";
    static final String DB_PASSWORD_FILE = "LEASESYNC_DB_PASSWORD_FILE";

    @Spec
    private CommandSpec spec;

    @Option(names = "--port", paramLabel = "N", defaultValue = "" + ServerConfig.DEFAULT_PORT,
            description = "TCP port, 0..65535; 0 picks a free port (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = ServerConfig.DEFAULT_BIND_ADDRESS,
            description = "Address to bind (default: ${DEFAULT-VALUE}, loopback only).")
    private String bind;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Directory for the server's H2 database file; in-memory when absent (and no --db).")
    private Path dataDir;

    @Option(names = "--db", paramLabel = "JDBC_URL",
            description = "A PostgreSQL database shared by any number of server instances, "
                    + "jdbc:postgresql://HOST:PORT/DB (no password in it). User and password from "
                    + "$LEASESYNC_DB_USER and $LEASESYNC_DB_PASSWORD or a password file. Excludes --data-dir.")
    private String db;

    @Option(names = "--db-password-file", paramLabel = "PATH",
            description = "With --db: read the database password from this file (one trailing newline is "
                    + "ignored). Default: $LEASESYNC_DB_PASSWORD_FILE.")
    private Path dbPasswordFile;

    @Option(names = "--db-pool-size", paramLabel = "N",
            description = "With --db: database connections this instance keeps, 1.."
                    + ServerDatabaseConfig.MAX_POOL_SIZE + " (default: " + ServerDatabaseConfig.DEFAULT_POOL_SIZE
                    + "). Instances x pool size must stay under PostgreSQL's max_connections.")
    private Integer dbPoolSize;

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

    @Option(names = "--jobs", paramLabel = "on|off", defaultValue = "on",
            description = "Run the server's jobs by schedule (on) or only when asked through "
                    + "POST /v1/admin/jobs/NAME/run (off) (default: ${DEFAULT-VALUE}).")
    private String jobs;

    @Option(names = "--job-interval", paramLabel = "NAME=DURATION", converter = JobIntervalConverter.class,
            description = "A job's interval, or 'off' (repeatable). Jobs and defaults: expire-idempotency-keys=10m, "
                    + "prune-audit=1h, purge-tombstones=1h, release-stale-claims=1m.")
    private List<Map.Entry<String, Duration>> jobIntervals = new ArrayList<>();

    @Option(names = "--job-lease-ttl", paramLabel = "DURATION", defaultValue = "15s", converter = DurationConverter.class,
            description = "TTL of a job's lease: a dead instance's job is taken over within it (default: ${DEFAULT-VALUE}).")
    private Duration jobLeaseTtl;

    @Option(names = "--audit-retention", paramLabel = "DURATION", defaultValue = "7d", converter = DurationConverter.class,
            description = "Audit rows older than this are deleted by the job prune-audit (default: ${DEFAULT-VALUE}).")
    private Duration auditRetention;

    @Option(names = "--tombstone-retention", paramLabel = "DURATION", defaultValue = "30d",
            converter = DurationConverter.class,
            description = "Deleted records (tombstones) older than this are purged by the job purge-tombstones; a client "
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
     * Starts the server, prints the address and tokens, and blocks until stopped.
     *
     * @return 0 after a clean shutdown, 1 if the server could not start
     * @throws ParameterException for invalid option values (picocli turns it into exit code 2)
     */
    @Override
    public Integer call() throws InterruptedException {
        ServerConfig cfg;
        try {
            cfg = new ServerConfig(port, bind, database(), seed, faults, keyRetention, Clock.systemUTC(), audit, jobs());
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
        err.println("serve: instance " + server.instanceId() + " on " + cfg.database().describe());
        err.flush();
        Thread hook = new Thread(() -> {
            // SIGTERM (systemd stop, kill) or Ctrl-C: stop taking requests, end the jobs, release their leases
            err.println("serve: stopping (SIGTERM or Ctrl-C): instance " + server.instanceId());
            err.flush();
            LOG.info("stopping on a signal: instance {}", server.instanceId());
            server.close();
            err.println("serve: stopped cleanly");
            err.flush();
            LOG.info("stopped cleanly: instance {}", server.instanceId());
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

    /**
     * The database the options choose: PostgreSQL with {@code --db}, else H2 in {@code --data-dir},
     * else H2 in memory.
     *
     * @throws IllegalArgumentException naming the bad option, variable or value
     */
    private ServerDatabaseConfig database() {
        if (db == null) {
            if (dbPasswordFile != null || dbPoolSize != null) {
                throw new IllegalArgumentException((dbPasswordFile != null ? "--db-password-file" : "--db-pool-size")
                        + " needs --db");
            }
            return dataDir == null ? ServerDatabaseConfig.inMemory() : new ServerDatabaseConfig.H2File(dataDir);
        }
        if (dataDir != null) {
            throw new IllegalArgumentException("--db and --data-dir exclude each other: --db keeps the data in "
                    + "PostgreSQL, --data-dir in an H2 file");
        }
        String user = env.get(DB_USER);
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("--db needs the database user in " + DB_USER);
        }
        return new ServerDatabaseConfig.Postgres(db, user, password(),
                dbPoolSize == null ? ServerDatabaseConfig.DEFAULT_POOL_SIZE : dbPoolSize);
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
        JobSettings s = JobSettings.defaults().withScheduled(jobs.equals("on")).withLeaseTtl(jobLeaseTtl)
                .withAuditRetention(auditRetention).withTombstoneRetention(tombstoneRetention).withBatchSize(jobBatchSize)
                .withPauseAfterFirstBatch(new java.util.TreeSet<>(jobPause));
        for (Map.Entry<String, Duration> e : jobIntervals) {
            s = s.withInterval(e.getKey(), e.getValue());
        }
        return s;
    }

    /** The password from a file (option, else variable) or from the variable; empty if none is given. */
    private String password() {
        Path file = dbPasswordFile != null ? dbPasswordFile
                : env.containsKey(DB_PASSWORD_FILE) && !env.get(DB_PASSWORD_FILE).isBlank()
                        ? Path.of(env.get(DB_PASSWORD_FILE)) : null;
        String inEnv = env.get(DB_PASSWORD);
        if (file == null) {
            return inEnv == null ? "" : inEnv;
        }
        if (inEnv != null) {
            throw new IllegalArgumentException("the database password is given twice, in " + DB_PASSWORD
                    + " and in the file " + file + "; give only one");
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            return text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                    : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the database password file " + file + ": " + e);
        }
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
                throw new CommandLine.TypeConversionException("expected NAME=DURATION or NAME=off but was '" + value + "'");
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
