package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.Database;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.SyncSettings;
import org.leasesync.testing.ClientStack;

/**
 * Item 3: sync throughput over loopback HTTP against the reference server (in-process, in-memory
 * H2): a full sync run (coordinator, worker, HTTP client, local file database on the app's URL)
 * pulling N records into an empty data directory, and one pushing M outbox entries. The baseline
 * inserts the same records straight into the same kind of local file database in JDBC batches of
 * one pull page ({@code --pull-page}, the product's page size unless set) per transaction.
 */
final class SyncBench {

    private static final TaskKey KEY = TaskKey.of("alice", "backup");
    private static final int SEED_BATCH = 1_000;

    /**
     * @param pullRecords records on the server to pull
     * @param pushRecords outbox entries to push
     * @param rounds measured pull rounds (after one warm-up round); the push runs once per round
     * @param pullPage records per pull request of the measured client (the product's default unless set)
     */
    record Settings(int pullRecords, int pushRecords, int rounds, int pullPage) {}

    private SyncBench() {}

    static String payload(int i) {
        return "{\"title\":\"setting " + i + "\",\"value\":\"" + "x".repeat(40) + "\",\"n\":" + i + "}";
    }

    static void run(Figures f, Settings s, Path workDir) throws Exception {
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults())) {
            long seedStart = System.nanoTime();
            seed(server, s.pullRecords());
            // the server alone: protocol pushes of 1,000 changes each, no client database behind them
            f.sample("sync.seed_push", s.pullRecords() / ((System.nanoTime() - seedStart) / 1e9), "records/s");
            Map<String, String> tokens = Map.of("alice", server.tokenFor("alice"));
            for (int round = 0; round <= s.rounds(); round++) {
                boolean measured = round > 0;
                // baseline first and pull second in even rounds, the other way round in odd ones
                for (int part = 0; part < 2; part++) {
                    if ((part + round) % 2 == 0) {
                        long cpu0 = cpuNanos();
                        double direct = directInsert(workDir.resolve("direct-" + round), s.pullRecords(), s.pullPage());
                        if (measured) {
                            f.sample("sync.direct_insert", direct, "records/s");
                            f.sample(
                                    "sync.direct_insert.cpu",
                                    s.pullRecords() / ((cpuNanos() - cpu0) / 1e9),
                                    "records/cpu-s");
                        }
                    } else {
                        Path dir = workDir.resolve("client-" + round);
                        try (LocalStore store = LocalStore.openFile(dir);
                                ClientStack client = new ClientStack(
                                        store,
                                        server.baseUrl(),
                                        tokens,
                                        TimeSource.system(),
                                        settings(s),
                                        HttpSettings.DEFAULT)) {
                            client.keepLeasesAlive();
                            long cpu0 = cpuNanos();
                            long t0 = System.nanoTime();
                            RunResult r = client.sync(KEY, TaskSource.MANUAL);
                            double seconds = (System.nanoTime() - t0) / 1e9;
                            double cpuSeconds = (cpuNanos() - cpu0) / 1e9;
                            check(r);
                            int local = count(store.database());
                            if (local < s.pullRecords()) {
                                throw new IllegalStateException(
                                        "pulled " + local + " of " + s.pullRecords() + " records");
                            }
                            if (measured) {
                                f.sample("sync.pull", local / seconds, "records/s");
                                f.sample("sync.pull.records", local, "records");
                                f.sample("sync.pull.cpu", local / cpuSeconds, "records/cpu-s");
                            }
                            // the warm-up round pushes too (unrecorded), so the measured push runs on compiled code
                            push(f, client, s.pushRecords(), server, measured || s.rounds() == 0);
                        }
                    }
                }
            }
        }
        f.print(
                "sync.pull",
                "sync.pull.records",
                "sync.direct_insert",
                "sync.push",
                "sync.push.records",
                "sync.seed_push",
                "sync.pull.cpu",
                "sync.direct_insert.cpu",
                "sync.push.cpu");
        f.ratio("sync.pull_vs_direct_insert", f.median("sync.pull") / f.median("sync.direct_insert"));
        f.ratio("sync.pull_vs_direct_insert.cpu", f.median("sync.pull.cpu") / f.median("sync.direct_insert.cpu"));
    }

    /**
     * CPU time of the whole process (client, in-process server, H2's writer, GC): on a machine shared
     * with other work, records per CPU-second is what the work itself costs, whatever the queueing.
     */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static SyncSettings settings(Settings s) {
        SyncSettings d = SyncSettings.DEFAULT;
        return new SyncSettings(
                s.pullPage(), d.pushBatchSize(), d.confirmAttempts(), d.confirmBackoff(), d.keyRetention());
    }

    private static void push(Figures f, ClientStack client, int n, ReferenceServer server, boolean record)
            throws Exception {
        for (int i = 0; i < n; i++) {
            client.edits.addEdit(KEY, "r-" + i, payload(-i), false);
        }
        long appliedBefore = server.stats().changesApplied();
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        RunResult r = client.sync(KEY, TaskSource.MANUAL);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpuSeconds = (cpuNanos() - cpu0) / 1e9;
        check(r);
        long applied = server.stats().changesApplied() - appliedBefore;
        if (applied != n || client.edits.pendingCount(KEY) != 0) {
            throw new IllegalStateException("push applied " + applied + " of " + n + "; "
                    + client.edits.pendingCount(KEY) + " left in the outbox");
        }
        if (record) {
            f.sample("sync.push", n / seconds, "records/s");
            f.sample("sync.push.cpu", n / cpuSeconds, "records/cpu-s");
            f.sample("sync.push.records", n, "records");
        }
    }

    private static void check(RunResult r) {
        if (r.status() != RunStatus.SUCCEEDED) {
            throw new IllegalStateException("sync run did not succeed: " + r);
        }
    }

    /** Pushes {@code n} records as "another device", in batches of {@value #SEED_BATCH}. */
    private static void seed(ReferenceServer server, int n) {
        HttpSyncRemote other = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::tokenFor, "bench-seeder");
        for (int from = 0; from < n; from += SEED_BATCH) {
            List<OutboxEntry> entries = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + SEED_BATCH); i++) {
                entries.add(new OutboxEntry(
                        i + 1, UUID.randomUUID().toString(), "r-" + i, 0, false, payload(i), Instant.EPOCH));
            }
            PushResponse r = other.push(
                    KEY, new PushBatch("seed-" + from, UUID.randomUUID().toString(), entries), 1, "seed");
            if (r.results().stream().anyMatch(x -> !x.applied())) {
                throw new IllegalStateException("seeding the server failed: " + r);
            }
        }
    }

    /** The baseline: the same records into a new local database file, one JDBC batch and transaction per pull page. */
    private static double directInsert(Path dir, int n, int page) throws Exception {
        Files.createDirectories(dir);
        try (Database db = Database.open(DataDirectory.fileUrl(dir), "direct insert baseline", 4)) {
            long t0 = System.nanoTime();
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO local_record (user_id, scope, record_id,"
                        + " version, deleted, payload, server_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    for (int i = 0; i < n; i++) {
                        ps.setString(1, KEY.userId());
                        ps.setString(2, KEY.scope().wireName());
                        ps.setString(3, "r-" + i);
                        ps.setLong(4, 1);
                        ps.setBoolean(5, false);
                        ps.setString(6, payload(i));
                        ps.setLong(7, System.currentTimeMillis());
                        ps.addBatch();
                        if ((i + 1) % page == 0 || i == n - 1) {
                            ps.executeBatch();
                            c.commit();
                        }
                    }
                }
            }
            return n / ((System.nanoTime() - t0) / 1e9);
        }
    }

    private static int count(Database db) throws Exception {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT COUNT(*) FROM local_record WHERE user_id = ? AND scope = ?")) {
            ps.setString(1, KEY.userId());
            ps.setString(2, KEY.scope().wireName());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
