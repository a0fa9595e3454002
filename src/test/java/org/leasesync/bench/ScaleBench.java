package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.Postgres;

/**
 * The reference server scaled out — push and pull throughput through 1, 2
 * and 3 real {@code leasesync serve --db} processes ({@link ServerProcess}) on one PostgreSQL, and
 * one instance on H2 (its file, {@code --data-dir}) against one on PostgreSQL. Six client streams
 * (alice and bob, each in three scopes, so no two streams share a user+scope and wait for each
 * other's scope lock) run in this JVM over the protocol client ({@link HttpSyncRemote}); stream
 * {@code i} talks to instance {@code i mod N}.
 *
 * <p>Per configuration and round: a fresh database, the instances started one after another, every
 * stream seeded with the same number of records (not measured), a short warm-up, then a pull phase
 * (each stream reads its whole stream from the start, pages of {@code batch}, again and again) and
 * a push phase (each stream pushes batches of {@code batch} new records). Measured: records per
 * second, and the CPU time of the server processes, of PostgreSQL's sessions serving them and of
 * this client JVM, per request and per record. Configurations rotate their order from round to
 * round. The runner fails on any push not applied exactly once and on any pull pass that does not
 * return every record of its stream exactly once.
 */
final class ScaleBench {

    private static final List<TaskKey> STREAMS = List.of(
            TaskKey.of("alice", "course_sync"),
            TaskKey.of("alice", "message_sync"),
            TaskKey.of("alice", "backup"),
            TaskKey.of("bob", "course_sync"),
            TaskKey.of("bob", "message_sync"),
            TaskKey.of("bob", "backup"));

    /** A server set-up: {@code instances} {@code serve} processes on PostgreSQL, or one on an H2 file. */
    record Config(String name, boolean postgres, int instances) {}

    /**
     * @param configs the set-ups to compare
     * @param rounds measured rounds (each a fresh database per configuration)
     * @param phase length of the measured pull phase and of the push phase
     * @param warmup length of the unmeasured push and pull before them
     * @param recordsPerStream records seeded into every stream before the pull phase
     * @param batch records per push and per pull page
     * @param serverJvm options of every server JVM
     * @param postgres where the PostgreSQL databases come from ({@code PG} or {@code PG_NOFSYNC})
     */
    record Settings(
            List<Config> configs,
            int rounds,
            Duration phase,
            Duration warmup,
            int recordsPerStream,
            int batch,
            List<String> serverJvm,
            BenchDatabases.Backend postgres) {}

    /** What one phase saw, summed over the streams. */
    private record Phase(
            long records, long requests, double seconds, double serverCpu, double dbCpu, double clientCpu) {}

    private ScaleBench() {}

    static List<Config> defaultConfigs() {
        return List.of(
                new Config("pg1", true, 1),
                new Config("pg2", true, 2),
                new Config("pg3", true, 3),
                new Config("h2file1", false, 1));
    }

    static void run(Figures f, Settings s, BenchDatabases dbs, Path workDir) throws Exception {
        f.note("scale: " + STREAMS.size() + " streams, batches and pages of " + s.batch() + ", " + s.recordsPerStream()
                + " records per stream seeded; servers: " + String.join(" ", s.serverJvm()));
        for (int round = 0; round < s.rounds(); round++) {
            for (int i = 0; i < s.configs().size(); i++) {
                Config c = s.configs().get((i + round) % s.configs().size());
                runOnce(f, s, c, dbs, workDir.resolve("scale-" + c.name() + "-" + round));
            }
        }
        for (Config c : s.configs()) {
            String b = "scale." + c.name();
            f.print(
                    b + ".load",
                    b + ".pull",
                    b + ".pull.per_instance",
                    b + ".pull.server_cpu_us_per_request",
                    b + ".pull.db_cpu_us_per_request",
                    b + ".pull.client_cpu_us_per_request",
                    b + ".pull.server_cpu_us_per_record",
                    b + ".push",
                    b + ".push.per_instance",
                    b + ".push.server_cpu_us_per_request",
                    b + ".push.db_cpu_us_per_request",
                    b + ".push.client_cpu_us_per_request",
                    b + ".push.server_cpu_us_per_record");
        }
        ratio(f, s, "pg2", "pg1");
        ratio(f, s, "pg3", "pg1");
        ratio(f, s, "pg1", "h2file1");
    }

    private static void ratio(Figures f, Settings s, String a, String b) {
        if (s.configs().stream().anyMatch(c -> c.name().equals(a))
                && s.configs().stream().anyMatch(c -> c.name().equals(b))) {
            for (String what : List.of("pull", "push")) {
                f.ratio(
                        "scale." + a + "_vs_" + b + "." + what,
                        f.median("scale." + a + "." + what) / f.median("scale." + b + "." + what));
            }
        }
    }

    private static void runOnce(Figures f, Settings s, Config c, BenchDatabases dbs, Path dir) throws Exception {
        Files.createDirectories(dir);
        String jdbcUrl = c.postgres() ? withoutParameters(dbs.newDatabase(s.postgres(), "scale")) : null;
        List<ServerProcess> servers = new ArrayList<>();
        try {
            for (int i = 0; i < c.instances(); i++) {
                servers.add(ServerProcess.start(
                        jdbcUrl, dir.resolve("h2"), s.serverJvm(), dir.resolve("server-" + i + ".log")));
            }
            List<HttpSyncRemote> remotes = new ArrayList<>();
            for (int i = 0; i < STREAMS.size(); i++) {
                ServerProcess server = servers.get(i % servers.size());
                remotes.add(new HttpSyncRemote(
                        server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::token, "scale-client-" + i));
            }
            long[] expected = new long[STREAMS.size()];
            long[] demo = new long[STREAMS.size()];
            for (int i = 0; i < STREAMS.size(); i++) {
                demo[i] = pullPass(remotes.get(i), STREAMS.get(i), s.batch(), -1)[0]; // the demo seed's records
                expected[i] = demo[i];
            }
            AtomicLong[] pushed = new AtomicLong[STREAMS.size()];
            for (int i = 0; i < STREAMS.size(); i++) {
                pushed[i] = new AtomicLong();
                for (int n = 0; n < s.recordsPerStream(); n += s.batch()) {
                    push(remotes.get(i), i, STREAMS.get(i), pushed[i], Math.min(s.batch(), s.recordsPerStream() - n));
                }
            }
            phase(
                    s,
                    servers,
                    jdbcUrl,
                    s.warmup(),
                    (i, stop) -> pushUntil(remotes.get(i), i, pushed[i], s.batch(), stop));
            for (int i = 0; i < STREAMS.size(); i++) {
                expected[i] = demo[i] + pushed[i].get();
            }
            phase(
                    s,
                    servers,
                    jdbcUrl,
                    s.warmup(),
                    (i, stop) -> pullUntil(remotes.get(i), i, expected[i], s.batch(), stop));
            double load = BenchDatabases.loadAverage();
            Phase pull = phase(
                    s,
                    servers,
                    jdbcUrl,
                    s.phase(),
                    (i, stop) -> pullUntil(remotes.get(i), i, expected[i], s.batch(), stop));
            Phase push = phase(
                    s,
                    servers,
                    jdbcUrl,
                    s.phase(),
                    (i, stop) -> pushUntil(remotes.get(i), i, pushed[i], s.batch(), stop));
            String b = "scale." + c.name();
            f.sample(b + ".load", load, "load");
            record(f, b + ".pull", pull, c.instances());
            record(f, b + ".push", push, c.instances());
            f.note(String.format(
                    Locale.ROOT,
                    "scale %s: pull %.0f records/s, push %.0f records/s (load %.1f)",
                    c.name(),
                    pull.records() / pull.seconds(),
                    push.records() / push.seconds(),
                    load));
        } finally {
            for (ServerProcess p : servers) {
                p.close();
            }
        }
    }

    private static void record(Figures f, String b, Phase p, int instances) {
        f.sample(b, p.records() / p.seconds(), "records/s");
        f.sample(b + ".per_instance", p.records() / p.seconds() / instances, "records/s");
        f.sample(b + ".server_cpu_us_per_request", p.serverCpu() * 1e6 / p.requests(), "us");
        f.sample(b + ".db_cpu_us_per_request", p.dbCpu() * 1e6 / p.requests(), "us");
        f.sample(b + ".client_cpu_us_per_request", p.clientCpu() * 1e6 / p.requests(), "us");
        f.sample(b + ".server_cpu_us_per_record", p.serverCpu() * 1e6 / p.records(), "us");
    }

    /** One stream's work in a phase: runs until {@code stop} (System.nanoTime) and returns {records, requests}. */
    @FunctionalInterface
    private interface StreamWork {
        long[] run(int stream, long stopNanos) throws Exception;
    }

    /** Runs every stream on its own thread for {@code length}; measures CPU of servers, database sessions and this JVM. */
    private static Phase phase(
            Settings s, List<ServerProcess> servers, String jdbcUrl, Duration length, StreamWork work)
            throws Exception {
        AtomicLong records = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        long[] stop = new long[1];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < STREAMS.size(); i++) {
            int stream = i;
            Thread t = new Thread(
                    () -> {
                        try {
                            go.await();
                            long[] done = work.run(stream, stop[0]);
                            records.addAndGet(done[0]);
                            requests.addAndGet(done[1]);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "scale-client-" + i);
            threads.add(t);
            t.start();
        }
        double serverBefore = serverCpu(servers);
        double dbBefore = dbCpu(jdbcUrl);
        long clientBefore = LeaseBench.processCpuNanos();
        long t0 = System.nanoTime();
        stop[0] = t0 + length.toNanos();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Phase p = new Phase(
                records.get(),
                requests.get(),
                seconds,
                serverCpu(servers) - serverBefore,
                dbCpu(jdbcUrl) - dbBefore,
                (LeaseBench.processCpuNanos() - clientBefore) / 1e9);
        if (failure.get() != null) {
            throw new IllegalStateException("a scale client failed: " + failure.get(), failure.get());
        }
        return p;
    }

    private static double serverCpu(List<ServerProcess> servers) {
        return servers.stream().mapToDouble(p -> p.cpu().toNanos() / 1e9).sum();
    }

    /** CPU seconds of the PostgreSQL sessions connected to the database (the servers' pools and instance locks). */
    private static double dbCpu(String jdbcUrl) throws Exception {
        if (jdbcUrl == null) {
            return 0;
        }
        long nanos = 0;
        try (Connection c = DriverManager.getConnection(jdbcUrl, Postgres.USER, Postgres.PASSWORD);
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid()")) {
            while (rs.next()) {
                nanos += BenchDatabases.processCpuNanos(rs.getLong(1));
            }
        }
        return nanos / 1e9;
    }

    private static long[] pushUntil(HttpSyncRemote remote, int stream, AtomicLong pushed, int batch, long stop) {
        long records = 0;
        long requests = 0;
        do { // at least one request: a loaded machine may reach the stop before the first
            records += push(remote, stream, STREAMS.get(stream), pushed, batch);
            requests++;
        } while (System.nanoTime() < stop);
        return new long[] {records, requests};
    }

    /** Pushes {@code n} new records; fails unless every one was applied, once. */
    private static int push(HttpSyncRemote remote, int stream, TaskKey key, AtomicLong pushed, int n) {
        List<OutboxEntry> entries = new ArrayList<>(n);
        long from = pushed.get();
        for (int k = 0; k < n; k++) {
            long id = from + k;
            entries.add(new OutboxEntry(
                    id + 1,
                    UUID.randomUUID().toString(),
                    "s" + stream + "-" + id,
                    0,
                    false,
                    SyncBench.payload((int) id),
                    Instant.EPOCH));
        }
        PushResponse r = remote.push(
                key,
                new PushBatch("scale-" + stream + "-" + from, UUID.randomUUID().toString(), entries),
                1,
                "scale");
        for (PushResult result : r.results()) {
            if (!result.applied() || result.duplicate() || result.version() != 1) {
                throw new IllegalStateException("push to " + key + " not applied once: " + result);
            }
        }
        if (r.results().size() != n) {
            throw new IllegalStateException(
                    "push to " + key + ": " + r.results().size() + " results for " + n + " changes");
        }
        pushed.addAndGet(n);
        return n;
    }

    private static long[] pullUntil(HttpSyncRemote remote, int stream, long expected, int batch, long stop) {
        long records = 0;
        long requests = 0;
        do { // at least one pass, as for pushes
            long[] pass = pullPass(remote, STREAMS.get(stream), batch, expected);
            records += pass[0];
            requests += pass[1];
        } while (System.nanoTime() < stop);
        return new long[] {records, requests};
    }

    /**
     * Reads a whole stream from the start, page by page; returns {records, requests}. Fails unless
     * every record came exactly once and (when {@code expected >= 0}) there were exactly that many.
     */
    private static long[] pullPass(HttpSyncRemote remote, TaskKey key, int batch, long expected) {
        Set<String> ids = new HashSet<>();
        Optional<String> cursor = Optional.empty();
        long requests = 0;
        while (true) {
            PullPage page = remote.pull(key, cursor, batch, 1, "scale");
            requests++;
            for (var r : page.records()) {
                if (!ids.add(r.id())) {
                    throw new IllegalStateException("pull of " + key + " returned " + r.id() + " twice");
                }
            }
            cursor = Optional.of(page.nextCursor());
            if (!page.hasMore()) {
                break;
            }
        }
        if (expected >= 0 && ids.size() != expected) {
            throw new IllegalStateException(
                    "pull of " + key + " returned " + ids.size() + " records, expected " + expected);
        }
        return new long[] {ids.size(), requests};
    }

    /** {@code jdbc:postgresql://host:port/db?user=...} → {@code jdbc:postgresql://host:port/db} (serve takes credentials from the environment). */
    static String withoutParameters(String url) {
        int q = url.indexOf('?');
        return q < 0 ? url : url.substring(0, q);
    }
}
