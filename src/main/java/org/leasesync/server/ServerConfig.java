package org.leasesync.server;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.faults.FaultSpec;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.store.ServerDatabaseConfig;

/**
 * Configuration of a {@link ReferenceServer}. Immutable; validated once, here.
 *
 * @param port TCP port, {@code 0..65535}; {@code 0} picks a free port
 * @param bindAddress address or host name to bind, e.g. {@code 127.0.0.1} (the default)
 * @param database where the data lives: H2 in memory (unique to the server instance, gone when it
 *     closes), an H2 file in a data directory, or a PostgreSQL database shared by any number of
 *     instances (see {@link ServerDatabaseConfig})
 * @param seed what to put into a new database
 * @param faults faults to switch on at start (see {@link FaultSpec}); may be empty
 * @param keyRetention how long a completed push's idempotency record is kept, counted from its
 *     completion; positive
 * @param clock every time the server reads (record times, key expiry, run intervals, audit rows)
 * @param audit true to record every user request to the pull, push and push-status endpoints in
 *     the audit log (table {@code request_audit}, read through {@code GET /v1/admin/audit}); off by
 *     default ({@code leasesync serve --audit})
 * @param jobs how the server's periodic jobs run (intervals, lease TTL, retentions; docs/reference-server.md, "Jobs")
 * @param sessionIdle how long a session lives unused before it ends ({@code serve --session-idle});
 *     positive, default {@link #DEFAULT_SESSION_IDLE}
 * @param tls the certificate and key to listen with HTTPS, or null for plain HTTP
 */
public record ServerConfig(
        int port,
        String bindAddress,
        ServerDatabaseConfig database,
        Seed seed,
        List<FaultSpec> faults,
        Duration keyRetention,
        Clock clock,
        boolean audit,
        JobSettings jobs,
        Duration sessionIdle,
        ServerTls tls) {

    /** Default port of {@code leasesync serve}. */
    public static final int DEFAULT_PORT = 8787;
    /** Default bind address: loopback only. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** Default idempotency key retention: 24 hours. */
    public static final Duration DEFAULT_KEY_RETENTION = Duration.ofHours(24);
    /** Default idle time of a session: 90 days. */
    public static final Duration DEFAULT_SESSION_IDLE = Duration.ofDays(90);

    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException naming the bad value
     * @throws NullPointerException if a required component is null
     */
    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535 but was " + port);
        }
        Objects.requireNonNull(bindAddress, "bindAddress");
        if (bindAddress.isBlank()) {
            throw new IllegalArgumentException("bindAddress must not be blank but was '" + bindAddress + "'");
        }
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(seed, "seed");
        faults = List.copyOf(Objects.requireNonNull(faults, "faults"));
        Objects.requireNonNull(keyRetention, "keyRetention");
        if (keyRetention.isNegative() || keyRetention.isZero()) {
            throw new IllegalArgumentException("keyRetention must be positive but was " + keyRetention);
        }
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(jobs, "jobs");
        Objects.requireNonNull(sessionIdle, "sessionIdle");
        if (sessionIdle.isNegative() || sessionIdle.isZero()) {
            throw new IllegalArgumentException("sessionIdle must be positive but was " + sessionIdle);
        }
    }

    /**
     * With the default session idle time and plain HTTP.
     *
     * @throws IllegalArgumentException naming the bad value
     * @throws NullPointerException if a required component is null
     */
    public ServerConfig(
            int port,
            String bindAddress,
            ServerDatabaseConfig database,
            Seed seed,
            List<FaultSpec> faults,
            Duration keyRetention,
            Clock clock,
            boolean audit,
            JobSettings jobs) {
        this(port, bindAddress, database, seed, faults, keyRetention, clock, audit, jobs, DEFAULT_SESSION_IDLE, null);
    }

    /**
     * With the default job settings ({@link JobSettings#defaults()}).
     *
     * @throws IllegalArgumentException naming the bad value
     * @throws NullPointerException if a required component is null
     */
    public ServerConfig(
            int port,
            String bindAddress,
            ServerDatabaseConfig database,
            Seed seed,
            List<FaultSpec> faults,
            Duration keyRetention,
            Clock clock,
            boolean audit) {
        this(port, bindAddress, database, seed, faults, keyRetention, clock, audit, JobSettings.defaults());
    }

    /**
     * The H2 form: {@code dataDir} is the directory of the H2 database file, {@code null} for an
     * in-memory database.
     *
     * @throws IllegalArgumentException naming the bad value
     * @throws NullPointerException if a required component is null
     */
    public ServerConfig(
            int port,
            String bindAddress,
            Path dataDir,
            Seed seed,
            List<FaultSpec> faults,
            Duration keyRetention,
            Clock clock,
            boolean audit) {
        this(port, bindAddress, h2(dataDir), seed, faults, keyRetention, clock, audit, JobSettings.defaults());
    }

    private static ServerDatabaseConfig h2(Path dataDir) {
        return dataDir == null ? ServerDatabaseConfig.inMemory() : new ServerDatabaseConfig.H2File(dataDir);
    }

    /** The H2 data directory, or {@code null} for an in-memory H2 database or PostgreSQL. */
    public Path dataDir() {
        return database instanceof ServerDatabaseConfig.H2File f ? f.dataDir() : null;
    }

    /**
     * Defaults for tests and embedding: free port on 127.0.0.1, in-memory database, demo seed,
     * no faults, 24 h key retention, the system UTC clock, audit log off, jobs scheduled at their
     * default intervals, sessions idle for 90 days, plain HTTP.
     */
    public static ServerConfig defaults() {
        return new ServerConfig(
                0,
                DEFAULT_BIND_ADDRESS,
                ServerDatabaseConfig.inMemory(),
                Seed.DEMO,
                List.of(),
                DEFAULT_KEY_RETENTION,
                Clock.systemUTC(),
                false,
                JobSettings.defaults());
    }

    /** A copy with another port. */
    public ServerConfig withPort(int newPort) {
        return new ServerConfig(
                newPort, bindAddress, database, seed, faults, keyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with another bind address. */
    public ServerConfig withBindAddress(String newBindAddress) {
        return new ServerConfig(
                port, newBindAddress, database, seed, faults, keyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy on H2 with another data directory ({@code null} = in-memory). */
    public ServerConfig withDataDir(Path newDataDir) {
        return new ServerConfig(
                port, bindAddress, h2(newDataDir), seed, faults, keyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with another database. */
    public ServerConfig withDatabase(ServerDatabaseConfig newDatabase) {
        return new ServerConfig(
                port, bindAddress, newDatabase, seed, faults, keyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with another seed. */
    public ServerConfig withSeed(Seed newSeed) {
        return new ServerConfig(
                port, bindAddress, database, newSeed, faults, keyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with other start-up faults. */
    public ServerConfig withFaults(List<FaultSpec> newFaults) {
        return new ServerConfig(
                port, bindAddress, database, seed, newFaults, keyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with another key retention. */
    public ServerConfig withKeyRetention(Duration newKeyRetention) {
        return new ServerConfig(
                port, bindAddress, database, seed, faults, newKeyRetention, clock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with another clock. */
    public ServerConfig withClock(Clock newClock) {
        return new ServerConfig(
                port, bindAddress, database, seed, faults, keyRetention, newClock, audit, jobs, sessionIdle, tls);
    }

    /** A copy with the audit log switched on or off. */
    public ServerConfig withAudit(boolean newAudit) {
        return new ServerConfig(
                port, bindAddress, database, seed, faults, keyRetention, clock, newAudit, jobs, sessionIdle, tls);
    }

    /** A copy with other job settings. */
    public ServerConfig withJobs(JobSettings newJobs) {
        return new ServerConfig(
                port, bindAddress, database, seed, faults, keyRetention, clock, audit, newJobs, sessionIdle, tls);
    }

    /** A copy with another session idle time. */
    public ServerConfig withSessionIdle(Duration newSessionIdle) {
        return new ServerConfig(
                port, bindAddress, database, seed, faults, keyRetention, clock, audit, jobs, newSessionIdle, tls);
    }

    /** A copy listening with HTTPS ({@code null}: plain HTTP). */
    public ServerConfig withTls(ServerTls newTls) {
        return new ServerConfig(
                port, bindAddress, database, seed, faults, keyRetention, clock, audit, jobs, sessionIdle, newTls);
    }
}
