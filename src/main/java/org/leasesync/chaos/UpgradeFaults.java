package org.leasesync.chaos;

import static org.leasesync.chaos.AgentProcess.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.leasesync.store.SqlDialect;

/**
 * The chaos fault "killed during an upgrade": a device of its own ({@code device-uN}) whose data
 * directory an older leasesync left at client schema 2 with unsent edits in its outbox, opened by an
 * agent that is killed ({@code kill -9}) right after statement k of its migrations (k drawn from the
 * seed over every statement of V3 up to the latest), then started again as it would be after a
 * power cut: it must open the directory (the upgrade restored from the copy taken before it and run
 * again), and push the edits. The edits are journaled as the device's, so the checker's
 * {@code lost} count covers them; a directory that no longer opens is counted as {@code stuck}.
 *
 * <p>One episode runs at a time, on its own thread (it starts two JVMs); a fault asked for while one
 * runs is skipped. The main thread draws every choice from the seed. Thread-safe. {@link #drain}
 * blocks until the running episode has ended.
 */
final class UpgradeFaults {

    /** The schema the older leasesync left: local records and an outbox, as every later one has. */
    static final int OLD_SCHEMA = 2;
    /** Printed by the agent (the store's migration probe) when it stops after the chosen statement. */
    static final String PAUSED_LINE = "leasesync-migration-paused ";

    private final ChaosHarness.Settings s;
    private final ServerProcess server;
    private final Journal journal;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "chaos-upgrade");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger episodes = new AtomicInteger();
    private final AtomicInteger kills = new AtomicInteger();
    private final List<String> devices = new ArrayList<>();
    private final List<String> bricked = new ArrayList<>();
    private int statements = -1;
    private volatile boolean draining;

    UpgradeFaults(ChaosHarness.Settings settings, ServerProcess server, Journal journal) {
        this.s = settings;
        this.server = server;
        this.journal = journal;
    }

    /** Whether an episode is running now. */
    boolean running() {
        return running.get();
    }

    /** Kills during a migration so far. */
    int kills() {
        return kills.get();
    }

    /**
     * Statements in the migrations from {@link #OLD_SCHEMA} to the latest, counted once by running
     * them in this process on a scratch directory. Main thread only; blocks on the files.
     */
    int statements() throws IOException {
        if (statements < 0) {
            Path scratch =
                    Files.createDirectories(s.workDir().resolve("upgrades").resolve("count"));
            String url = url(scratch);
            Flyway.configure()
                    .dataSource(url, "sa", "")
                    .locations(SqlDialect.H2.clientMigrations())
                    .target(String.valueOf(OLD_SCHEMA))
                    .load()
                    .migrate();
            AtomicInteger n = new AtomicInteger();
            Flyway.configure()
                    .dataSource(url, "sa", "")
                    .locations(SqlDialect.H2.clientMigrations())
                    .callbacks(new StatementCounter(n))
                    .load()
                    .migrate();
            statements = n.get();
            try (Connection c = DriverManager.getConnection(url, "sa", "");
                    Statement st = c.createStatement()) {
                st.execute("SHUTDOWN");
            } catch (SQLException e) {
                throw new IOException("cannot close the scratch database in " + scratch + ": " + e.getMessage(), e);
            }
        }
        return statements;
    }

    /**
     * Starts an episode on a new device for {@code user}'s {@code scope} with {@code edits} unsent
     * edits, killed after migration statement {@code statement}; does nothing while one runs or
     * once the drain began. Does not block.
     */
    void killDuringMigration(String user, String scope, int statement, int edits) {
        if (draining || !running.compareAndSet(false, true)) {
            return;
        }
        int n = episodes.incrementAndGet();
        runner.execute(() -> {
            try {
                episode(n, user, scope, statement, edits);
            } catch (Exception e) {
                s.progress().println("chaos: upgrade episode " + n + " failed: " + e);
            } finally {
                running.set(false);
            }
        });
    }

    /** No new episode from here on; waits up to 4 minutes for the running one. Blocks. */
    void drain() throws InterruptedException {
        draining = true;
        runner.shutdown();
        if (!runner.awaitTermination(4, TimeUnit.MINUTES)) {
            s.progress().println("chaos: an upgrade episode did not end within 4 minutes");
        }
    }

    /**
     * Each upgrade device's local database by device name, for the checker (after {@link #drain}).
     * A directory that cannot be opened any more is left out and reported by {@link #violations}.
     */
    Map<String, Evidence.Device> evidence() {
        Map<String, Evidence.Device> out = new HashMap<>();
        synchronized (devices) {
            for (String d : devices) {
                try {
                    out.put(d, LocalEvidence.read(dir(d)));
                } catch (RuntimeException e) {
                    bricked.add(d + " cannot be opened after the run: " + e.getMessage());
                }
            }
        }
        return out;
    }

    /** The upgrade devices left unusable: each a {@code stuck} violation. */
    List<ChaosReport.Violation> violations() {
        synchronized (devices) {
            return bricked.stream()
                    .map(b -> new ChaosReport.Violation("stuck", b, List.of()))
                    .toList();
        }
    }

    private void episode(int n, String user, String scope, int statement, int edits) throws Exception {
        String device = "device-u" + n;
        Path dir = dir(device);
        oldDirectory(dir, device, user, scope, edits);
        synchronized (devices) {
            devices.add(device);
        }
        ObjectNode e = journal.event("upgrade-device");
        e.put("device", device);
        e.put("schema", OLD_SCHEMA);
        e.put("killAfterStatement", statement);
        journal.write(e);
        for (int i = 1; i <= edits; i++) {
            ObjectNode edit = journal.event("edit");
            edit.put("device", device);
            edit.put("key", user + "|" + scope);
            edit.put("record", device + "-r" + i);
            edit.put("changeId", device + "-c" + i);
            journal.write(edit);
        }

        AgentProcess first = start(
                device, 0, Map.of("JAVA_TOOL_OPTIONS", "-Dleasesync.test.migration.pauseAfterStatement=" + statement));
        boolean paused = false;
        try {
            paused = first.migrationPaused().get(120, TimeUnit.SECONDS) == statement;
        } catch (TimeoutException | ExecutionException notPaused) {
            s.progress()
                    .println("chaos: " + device + " did not reach migration statement " + statement + " ("
                            + notPaused.getMessage() + "); killed anyway");
        }
        long sent = System.nanoTime();
        first.kill9();
        ObjectNode k = journal.event("kill");
        k.put("sent", sent);
        k.put("victim", first.pid());
        k.put("device", device);
        k.put("why", "migration statement " + statement);
        k.put("paused", paused); // false: killed elsewhere (it never reached the statement in 120 s)
        k.put("exited", !first.alive());
        k.put("survivors", false); // alone on its directory, holding no lease: nothing to take over
        journal.write(k);
        kills.incrementAndGet();

        AgentProcess again = start(device, 1, Map.of());
        try {
            again.ready().get(120, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e2) {
            again.kill9();
            synchronized (devices) {
                bricked.add(device + " (schema " + OLD_SCHEMA + ", killed after migration statement " + statement
                        + ") did not open again: see " + log(device));
            }
            return;
        }
        ObjectNode opened = journal.event("upgrade-opened");
        opened.put("device", device);
        journal.write(opened);
        try {
            JsonNode r = again.send(
                            cmd("settle").put("user", user).put("scope", scope).put("timeoutMs", 60_000))
                    .get(90, TimeUnit.SECONDS);
            if (!r.path("settled").asBoolean()) {
                s.progress().println("chaos: " + device + " did not settle: " + r); // its edits stay in its outbox
            }
        } catch (TimeoutException | ExecutionException e3) {
            s.progress().println("chaos: " + device + " settle failed: " + e3);
        } finally {
            again.quit(20);
        }
    }

    private AgentProcess start(String device, int incarnation, Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(s.javaCommand());
        cmd.addAll(List.of(
                "chaos-agent",
                "--data-dir",
                dir(device).toString(),
                "--server",
                server.url(),
                "--token",
                "alice=" + server.token("alice"),
                "--token",
                "bob=" + server.token("bob"),
                "--journal",
                s.workDir()
                        .resolve("journals")
                        .resolve(device + "-agent0-" + incarnation + ".jsonl")
                        .toString(),
                "--lease-ttl",
                s.leaseTtl().toMillis() + "ms",
                "--call-timeout",
                s.callTimeout().toMillis() + "ms"));
        AgentProcess a = AgentProcess.start(-1, incarnation, cmd, env, log(device), hit -> {});
        ObjectNode e = journal.event("agent-start");
        e.put("slot", -1);
        e.put("agentPid", a.pid());
        e.put("device", device);
        journal.write(e);
        return a;
    }

    /** A client data directory as an older leasesync left it: schema 2, a client id, unsent edits. */
    private static void oldDirectory(Path dir, String device, String user, String scope, int edits)
            throws IOException, SQLException {
        Files.createDirectories(dir);
        String url = url(dir);
        Flyway.configure()
                .dataSource(url, "sa", "")
                .locations(SqlDialect.H2.clientMigrations())
                .target(String.valueOf(OLD_SCHEMA))
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (PreparedStatement id =
                    c.prepareStatement("INSERT INTO client_identity (id, client_id) VALUES (1, ?)")) {
                id.setString(1, "chaos-" + device);
                id.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO outbox (user_id, scope, change_id, record_id,"
                            + " base_version, deleted, payload, created_at_ms, state) VALUES (?, ?, ?, ?, 0, FALSE, ?, ?, 'pending')")) {
                for (int i = 1; i <= edits; i++) {
                    ps.setString(1, user);
                    ps.setString(2, scope);
                    ps.setString(3, device + "-c" + i);
                    ps.setString(4, device + "-r" + i);
                    ps.setString(5, "{\"device\":\"" + device + "\",\"n\":" + i + "}");
                    ps.setLong(6, 1_700_000_000_000L + i);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (Statement st = c.createStatement()) {
                st.execute("SHUTDOWN");
            }
        }
    }

    private Path dir(String device) {
        return s.workDir().resolve("upgrades").resolve(device);
    }

    private Path log(String device) {
        return s.workDir().resolve("logs").resolve(device + ".log");
    }

    private static String url(Path dir) {
        return "jdbc:h2:file:" + dir.toAbsolutePath().resolve("leasesync");
    }

    /** Counts the statements Flyway runs. */
    private static final class StatementCounter implements Callback {

        private final AtomicInteger n;

        StatementCounter(AtomicInteger n) {
            this.n = n;
        }

        @Override
        public boolean supports(Event event, Context context) {
            return event == Event.AFTER_EACH_MIGRATE_STATEMENT;
        }

        @Override
        public boolean canHandleInTransaction(Event event, Context context) {
            return true;
        }

        @Override
        public void handle(Event event, Context context) {
            n.incrementAndGet();
        }

        @Override
        public String getCallbackName() {
            return "chaos-statement-counter";
        }
    }
}
