package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.leasesync.lease.TaskKey;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.HttpSyncRemote;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.JavaProcess;

/**
 * Cost as data grows. Two data directories — one empty, one holding {@code records}
 * local records and {@code runs} runs of history of the synced key — measured interleaved, the
 * empty one being the reference each figure is divided by:
 * <ul>
 *   <li>{@code open}: {@link LocalStore#openFile} after a clean close (the start-up check and
 *       open; the check's row read is skipped, {@code CleanCloseMarker});</li>
 *   <li>{@code open.fullcheck}: the same with the clean-close marker removed (as after a crash:
 *       the check reads every row) — what a start after a crash costs;</li>
 *   <li>{@code sync}: one sync run of the key that pulls {@code page} new records from the
 *       in-process reference server (and pushes nothing), with its retention prune;</li>
 *   <li>{@code datatab}: the Data tab's first page and record count.</li>
 * </ul>
 * Memory is the heap in use after a full GC with the store open, per directory, in this JVM (after
 * the sync and the first page, as the app; and after the bench's own {@code COUNT(*)}, which the
 * app does not do), and, per directory and round, the open, sync, heap and RSS of a child JVM with
 * the app's heap options that opens the directory alone ({@link GrowthChild}).
 */
final class GrowthBench {

    private static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    /**
     * @param records local records of the big directory
     * @param runs runs of history of the big directory
     * @param rounds measured rounds (after one warm-up)
     * @param startJvm options before the app's heap options in each child JVM (none when measuring)
     */
    record Settings(int records, int runs, int rounds, List<String> startJvm) {}

    private GrowthBench() {}

    static void run(Figures f, Settings s, Path workDir) throws Exception {
        Path empty = Files.createDirectories(workDir.resolve("growth-empty"));
        Path big = Files.createDirectories(workDir.resolve("growth-big"));
        try (LocalStore store = LocalStore.openFile(empty)) {
            store.database().query("touch", c -> null);
        }
        ensureFilled(f, big, s.records(), s.runs());
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults())) {
            Map<String, String> tokens = Map.of("alice", server.tokenFor("alice"));
            int seeded = 0;
            for (int round = 0; round <= s.rounds(); round++) {
                String p = round == 0 ? null : "growth.";
                seed(server, seeded, 100);
                seeded += 100;
                for (int part = 0; part < 2; part++) {
                    boolean bigFirst = round % 2 == 0;
                    boolean isBig = (part == 0) == bigFirst;
                    measure(f, p, isBig ? "big" : "empty", isBig ? big : empty, server, tokens, s.startJvm());
                }
            }
        }
        for (String what : List.of(
                "open",
                "open.fullcheck",
                "sync",
                "datatab",
                "count",
                "heap",
                "heap.aftercount",
                "child.open",
                "child.sync",
                "child.heap",
                "child.rss")) {
            f.print("growth.empty." + what, "growth.big." + what);
            f.ratio(
                    "growth." + what + ".big_vs_empty",
                    f.median("growth.big." + what) / f.median("growth.empty." + what));
        }
        for (int kb : CHILD_CACHE_KB) {
            for (String what : List.of("open", "sync", "heap", "rss")) {
                String n = "child" + kb / 1024 + "m." + what;
                f.print("growth.empty." + n, "growth.big." + n);
                f.ratio("growth." + n + ".big_vs_empty", f.median("growth.big." + n) / f.median("growth.empty." + n));
                f.ratio(
                        "growth." + n + ".big_vs_default_big",
                        f.median("growth.big." + n) / f.median("growth.big.child." + what));
            }
        }
        f.print("growth.fill_seconds");
    }

    /**
     * @param records local records of the big directory
     * @param runs runs of history of the big directory
     * @param pairs measured pairs (after one warm-up pair)
     * @param startJvm options before the app's heap options in each child JVM (none when measuring)
     * @param childJvm extra options of each child JVM; {@code {label}} in them becomes the directory and pair,
     *     e.g. {@code -XX:StartFlightRecording=filename=open-{label}.jfr,settings=profile}
     */
    record OpenSettings(int records, int runs, int pairs, List<String> startJvm, List<String> childJvm) {}

    /**
     * {@code growth-open}: the open of the empty and of the big directory, each in a fresh JVM with the app's
     * heap options ({@link GrowthChild} {@code --open-only}), alternately (big first in even pairs), after a
     * clean close — what a start of the app costs, cold JIT and all. A big directory already filled with the
     * same sizes in the work directory is reused.
     */
    static void runOpen(Figures f, OpenSettings s, Path workDir) throws Exception {
        Path empty = Files.createDirectories(workDir.resolve("growth-empty"));
        Path big = Files.createDirectories(workDir.resolve("growth-big"));
        if (!DataDirectory.existsIn(empty)) {
            try (LocalStore store = LocalStore.openFile(empty)) {
                store.database().query("touch", c -> null);
            }
        }
        ensureFilled(f, big, s.records(), s.runs());
        for (int pair = 0; pair <= s.pairs(); pair++) {
            String p = pair == 0 ? null : "growth.";
            for (int part = 0; part < 2; part++) {
                boolean isBig = (part == 0) == (pair % 2 == 0);
                String name = isBig ? "big" : "empty";
                String label = name + "-" + pair;
                List<String> jvm = s.childJvm().stream()
                        .map(o -> o.replace("{label}", label))
                        .toList();
                Map<String, Double> r = child(
                        s.startJvm(), jvm, List.of(isBig ? big.toString() : empty.toString(), "--open-only"), name);
                sample(f, p, name + ".freshopen", r.get("open"), "ms");
                sample(f, p, name + ".freshopen.cpu", r.get("opencpu"), "ms");
                sample(f, p, name + ".freshclose", r.get("close"), "ms");
            }
            for (int part = 0; part < 2; part++) { // the same open step by step (OpenPhases), again alternated
                boolean isBig = (part == 0) == (pair % 2 == 0);
                String name = isBig ? "big" : "empty";
                Map<String, Double> r = child(
                        s.startJvm(), List.of(), List.of(isBig ? big.toString() : empty.toString(), "--phases"), name);
                r.forEach((step, ms) -> sample(f, p, name + ".phase." + step, ms, "ms"));
            }
            if (p != null) {
                int n = f.samples("growth.big.freshopen").size() - 1;
                f.note(String.format(
                        java.util.Locale.ROOT,
                        "pair %d: open big %.0f ms, empty %.0f ms, %.2fx (CPU %.2fx);"
                                + " H2 open big %.0f ms, empty %.0f ms; close big %.0f ms, empty %.0f ms",
                        pair,
                        f.samples("growth.big.freshopen").get(n),
                        f.samples("growth.empty.freshopen").get(n),
                        f.samples("growth.big.freshopen").get(n)
                                / f.samples("growth.empty.freshopen").get(n),
                        f.samples("growth.big.freshopen.cpu").get(n)
                                / f.samples("growth.empty.freshopen.cpu").get(n),
                        f.samples("growth.big.phase.h2open").get(n),
                        f.samples("growth.empty.phase.h2open").get(n),
                        f.samples("growth.big.freshclose").get(n),
                        f.samples("growth.empty.freshclose").get(n)));
            }
        }
        for (String what : List.of(
                "freshopen",
                "freshopen.cpu",
                "freshclose",
                "phase.check",
                "phase.h2opencpu",
                "phase.h2open",
                "phase.schema",
                "phase.h2close")) {
            f.print("growth.empty." + what, "growth.big." + what);
            f.ratio(
                    "growth." + what + ".big_vs_empty",
                    f.median("growth.big." + what) / f.median("growth.empty." + what));
        }
        f.print("growth.fill_seconds");
    }

    private static void measure(
            Figures f,
            String p,
            String name,
            Path dir,
            ReferenceServer server,
            Map<String, String> tokens,
            List<String> startJvm)
            throws Exception {
        Files.deleteIfExists(dir.resolve(DataDirectory.FILE_BASE_NAME + ".mv.db.clean"));
        long t0 = System.nanoTime();
        try (LocalStore store = LocalStore.openFile(dir)) {
            sample(f, p, name + ".open.fullcheck", (System.nanoTime() - t0) / 1e6, "ms");
        }
        t0 = System.nanoTime();
        try (LocalStore store = LocalStore.openFile(dir)) {
            sample(f, p, name + ".open", (System.nanoTime() - t0) / 1e6, "ms");
            try (ClientStack client = new ClientStack(store, server.baseUrl(), tokens)) {
                client.keepLeasesAlive();
                long s0 = System.nanoTime();
                RunResult r = client.sync(KEY, TaskSource.MANUAL);
                sample(f, p, name + ".sync", (System.nanoTime() - s0) / 1e6, "ms");
                if (r.status() != RunStatus.SUCCEEDED) {
                    throw new IllegalStateException(name + ": the sync did not succeed: " + r);
                }
                JdbcLocalEdits edits = client.edits;
                long d0 = System.nanoTime();
                int page = edits.recordsPage(KEY, Optional.empty(), 201).size(); // what the Data tab reads
                sample(f, p, name + ".datatab", (System.nanoTime() - d0) / 1e6, "ms");
                sample(f, p, name + ".heap", heapAfterGc(), "MB"); // what the app has done: open, sync, first page
                long c0 = System.nanoTime();
                long count = edits.recordCount(KEY); // a count of every record: what the Data tab does not do
                sample(f, p, name + ".count", (System.nanoTime() - c0) / 1e6, "ms");
                if (page == 0 || count < page) {
                    throw new IllegalStateException(name + ": the data tab read " + page + " of " + count);
                }
                // the figure before i14n: after the bench's own COUNT(*), which reads every record into H2's page cache
                sample(f, p, name + ".heap.aftercount", heapAfterGc(), "MB");
            }
        }
        child(f, p, name, dir, server, tokens, startJvm, null);
        for (int kb : CHILD_CACHE_KB) {
            child(f, p, name, dir, server, tokens, startJvm, kb);
        }
    }

    /**
     * Page cache sizes (KB) tried in extra child JVMs, the {@code CACHE_SIZE} lever of §6: system property
     * {@code growth.cacheKb}, comma-separated (e.g. {@code -Dbench.jvm=-Dgrowth.cacheKb=8192,4096}); none by default.
     */
    static final List<Integer> CHILD_CACHE_KB = java.util.Arrays.stream(
                    System.getProperty("growth.cacheKb", "").split(","))
            .filter(x -> !x.isBlank())
            .map(Integer::valueOf)
            .toList();

    private static double heapAfterGc() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return (rt.totalMemory() - rt.freeMemory()) / 1e6;
    }

    /** Options of the child JVM: the app's heap options (jlink/config.sh). */
    static final List<String> CHILD_JVM = List.of(
            "-Xms16m",
            "-Xmx256m",
            "-XX:MinHeapFreeRatio=10",
            "-XX:MaxHeapFreeRatio=30",
            "-XX:+UseSerialGC",
            "-Xss512k");

    /** {@link GrowthChild} on {@code dir}: open, sync, first page, and its RSS, in a JVM of its own. */
    private static void child(
            Figures f,
            String p,
            String name,
            Path dir,
            ReferenceServer server,
            Map<String, String> tokens,
            List<String> startJvm,
            Integer cacheKb)
            throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(startJvm);
        cmd.addAll(CHILD_JVM);
        cmd.addAll(List.of(
                "-Dlogback.configurationFile=logback-bench.xml",
                "-cp",
                JavaProcess.classPath(),
                GrowthChild.class.getName(),
                dir.toString(),
                server.baseUrl(),
                tokens.get("alice")));
        if (cacheKb != null) {
            cmd.add(cacheKb.toString());
        }
        String label = cacheKb == null ? ".child." : ".child" + cacheKb / 1024 + "m.";
        for (Map.Entry<String, Double> e : run(cmd, name).entrySet()) {
            sample(
                    f,
                    p,
                    name + label + e.getKey(),
                    e.getValue(),
                    e.getKey().equals("open") || e.getKey().equals("sync") ? "ms" : "MB");
        }
    }

    /** {@link GrowthChild} with {@code startJvm}, the app's heap options, {@code extraJvm} and {@code args}: its figures. */
    private static Map<String, Double> child(
            List<String> startJvm, List<String> extraJvm, List<String> args, String name) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(startJvm);
        cmd.addAll(CHILD_JVM);
        cmd.addAll(extraJvm);
        cmd.addAll(List.of(
                "-Dlogback.configurationFile=logback-bench.xml",
                "-cp",
                JavaProcess.classPath(),
                GrowthChild.class.getName()));
        cmd.addAll(args);
        return run(cmd, name);
    }

    /** Runs a child JVM (at most 120 s) and parses its {@code growth-child name_unit=value ...} line. */
    private static Map<String, Double> run(List<String> cmd, String name) throws Exception {
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(proc.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!proc.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) || proc.exitValue() != 0) {
            proc.destroyForcibly();
            throw new IllegalStateException(name + ": the child JVM failed: " + out);
        }
        String line = out.lines()
                .filter(l -> l.startsWith("growth-child "))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(name + ": no figures from the child JVM: " + out));
        Map<String, Double> figures = new java.util.LinkedHashMap<>();
        for (String kv : line.substring("growth-child ".length()).split(" ")) {
            String[] parts = kv.split("=");
            figures.put(parts[0].substring(0, parts[0].lastIndexOf('_')), Double.parseDouble(parts[1]));
        }
        return figures;
    }

    private static void sample(Figures f, String p, String name, double value, String unit) {
        if (p != null) {
            f.sample(p + name, value, unit);
        }
    }

    /**
     * Fills {@code big} ({@link #fill}) unless an earlier run of this work directory did (a file
     * {@code filled-RECORDS-RUNS} next to the database says so; its rows may have been synced since).
     */
    private static void ensureFilled(Figures f, Path big, int records, int runs) throws Exception {
        Path filled = big.resolve("filled-" + records + "-" + runs);
        if (!Files.exists(filled)) {
            long t0 = System.nanoTime();
            fill(big, records, runs);
            Files.writeString(filled, "");
            f.sample("growth.fill_seconds", (System.nanoTime() - t0) / 1e9, "s");
        }
    }

    /** {@code records} local records of the key and {@code runs} finished runs, by plain JDBC batches. */
    private static void fill(Path dir, int records, int runs) throws Exception {
        try (LocalStore store = LocalStore.openFile(dir);
                Connection c = store.database().dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO local_record (user_id, scope, record_id,"
                    + " version, deleted, payload, server_time_ms) VALUES (?, ?, ?, 1, FALSE, ?, 0)")) {
                for (int i = 0; i < records; i++) {
                    ps.setString(1, KEY.userId());
                    ps.setString(2, KEY.scope().wireName());
                    ps.setString(3, "local-" + i);
                    ps.setString(4, SyncBench.payload(i));
                    ps.addBatch();
                    if ((i + 1) % 1000 == 0 || i == records - 1) {
                        ps.executeBatch();
                        c.commit();
                    }
                }
            }
            long now = Instant.now().toEpochMilli();
            try (PreparedStatement run = c.prepareStatement("INSERT INTO run (run_id, task_key, epoch, owner_id,"
                            + " first_source, started_at_ms, ended_at_ms, stage, status) VALUES (?, ?, ?, 'old-owner', 'schedule',"
                            + " ?, ?, 'done', 'succeeded')");
                    PreparedStatement trig =
                            c.prepareStatement("INSERT INTO run_trigger (run_id, source, merged, at_ms)"
                                    + " VALUES (?, 'schedule', FALSE, ?)");
                    PreparedStatement stage =
                            c.prepareStatement("INSERT INTO run_stage (run_id, stage, at_ms) VALUES (?, 'done', ?)")) {
                for (int i = 0; i < runs; i++) {
                    String id = "old-run-" + i;
                    // every 20 s, the newest 20 s ago: 100,000 runs span 23 days, all within the
                    // retention's 30 days, so each sync measures the steady state, not a backlog
                    long at = now - (runs - i) * 20_000L;
                    run.setString(1, id);
                    run.setString(2, KEY.asString());
                    run.setLong(3, -runs + i); // below every epoch the lease will grant
                    run.setLong(4, at);
                    run.setLong(5, at + 1000);
                    run.addBatch();
                    trig.setString(1, id);
                    trig.setLong(2, at);
                    trig.addBatch();
                    stage.setString(1, id);
                    stage.setLong(2, at);
                    stage.addBatch();
                    if ((i + 1) % 1000 == 0 || i == runs - 1) {
                        run.executeBatch();
                        trig.executeBatch();
                        stage.executeBatch();
                        c.commit();
                    }
                }
            }
        }
    }

    /** {@code n} new records on the server for the key, as another device. */
    private static void seed(ReferenceServer server, int from, int n) {
        HttpSyncRemote other = new HttpSyncRemote(
                server.baseUrl(), ClientStack.HTTP, HttpSettings.DEFAULT, server::tokenFor, "bench-growth-seeder");
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            entries.add(new OutboxEntry(
                    i + 1, UUID.randomUUID().toString(), "server-" + i, 0, false, SyncBench.payload(i), Instant.EPOCH));
        }
        PushResponse r = other.push(
                KEY, new PushBatch("growth-" + from, UUID.randomUUID().toString(), entries), 1, "seed");
        if (r.results().stream().anyMatch(x -> !x.applied())) {
            throw new IllegalStateException("seeding the server failed: " + r);
        }
    }
}
