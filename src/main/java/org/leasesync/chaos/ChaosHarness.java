package org.leasesync.chaos;

import static org.leasesync.chaos.AgentProcess.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The chaos harness: starts the reference server and client processes, injects seeded random
 * faults for N rounds, drains, then hands the history to the {@link Checker}. It holds the run's
 * course — start, rounds, drain, check, stop — and the seeded choice of each round's actions; the
 * agents are a {@link ChaosFleet}, the faults a {@link ChaosFaults}, the agents' OS time an
 * {@link OsTimeFaults}.
 *
 * <p>Two devices: {@code device-a} is {@code agents} processes on one data directory (one task
 * registry, one client id) and {@code device-b} one process on another (a second machine of the
 * same users, which makes conflicts). Each round does one to three actions, chosen by the seed:
 * edits; trigger storms of every source from several threads for overlapping keys of two users;
 * {@code kill -9} at a crash point (every stage boundary, and between "push answered" and
 * "confirmation written") or at a random moment, then a restart and a recovery trigger on another
 * process; server faults (latency, 500, 429, drop-after-apply, delay-after-apply beyond the call
 * timeout); a {@code kill -9} and restart of the server; wall-clock jumps either way;
 * {@code SIGSTOP} for longer than the TTL, then {@code SIGCONT}; account switches and cancels. With
 * {@link Settings#osTime()} every agent also starts with time moved the way the operating system
 * moves it ({@link OsTime}: its wall clock hours ahead or behind, or after a {@code btime} step).
 *
 * <p>Not thread-safe: one run per instance, driven from the calling thread. Blocks.
 */
final class ChaosHarness {

    /**
     * @param rounds rounds of faults
     * @param seed the random seed (same seed, same schedule of actions)
     * @param agents processes on device A (device B always has one)
     * @param workDir where data, journals and logs go
     * @param leaseTtl the agents' lease TTL
     * @param callTimeout the agents' HTTP call timeout (below 90% of the TTL)
     * @param javaCommand how to start this program in a child JVM (java, options, class path, main class)
     * @param progress where progress lines go
     * @param osTime the libraries that move agents' time the way the OS does ({@link OsTime}), or null
     *     for none (every agent on the machine's own clocks)
     */
    record Settings(
            int rounds,
            long seed,
            int agents,
            Path workDir,
            Duration leaseTtl,
            Duration callTimeout,
            List<String> javaCommand,
            PrintStream progress,
            OsTime.Libraries osTime) {

        Settings {
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
            }
            if (agents < 2 || agents > 8) {
                throw new IllegalArgumentException("--agents must be 2..8, got " + agents);
            }
            javaCommand = List.copyOf(javaCommand);
        }

        /** A dead owner on this machine is provable at once; the bound is one TTL, as invariant 3 says. */
        Duration takeoverBound() {
            return leaseTtl;
        }
    }

    static final List<String> USERS = List.of("alice", "bob");
    static final List<String> SCOPES = List.of("course_sync", "message_sync", "backup");

    private final Settings s;
    private final Random rnd;
    private final OsTimeFaults osTime;
    private final ScheduledExecutorService background = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "chaos-harness");
        t.setDaemon(true);
        return t;
    });
    private Journal journal;
    private ServerProcess server;
    private AdminClient admin;
    private ChaosFleet fleet;
    private ChaosFaults faults;
    private UpgradeFaults upgrades;

    ChaosHarness(Settings settings) {
        this.s = settings;
        this.rnd = new Random(settings.seed());
        this.osTime = new OsTimeFaults(settings.osTime(), settings.seed(), settings.agents() + 1);
    }

    /**
     * Agent starts per OS time, {@code os_time normal=N wall_ahead=A wall_behind=B btime=C}; each
     * non-normal start is also counted in {@code faults}.
     */
    String osTimeLine() {
        return osTime.line();
    }

    /** Starts of agents of the given OS time kind so far. */
    int osTimeStarts(OsTime.Kind kind) {
        return osTime.starts(kind);
    }

    /** Runs the whole experiment and checks it. Blocks for the length of the run. */
    ChaosReport run() throws IOException, InterruptedException {
        Path journals = Files.createDirectories(s.workDir().resolve("journals"));
        Path logs = Files.createDirectories(s.workDir().resolve("logs"));
        journal = new Journal(journals.resolve("harness.jsonl"));
        server = ServerProcess.h2(
                s.javaCommand(),
                freePort(),
                Files.createDirectories(s.workDir().resolve("server")),
                logs.resolve("server.log"));
        // the faults need the started server, the agents' hits need the faults: the agents start after both
        fleet = new ChaosFleet(
                s, server, journal, osTime, (slot, incarnation, hit) -> faults.onHit(slot, incarnation, hit));
        try {
            server.start();
            journal.write(journal.event("server-start"));
            admin = new AdminClient(server.url(), server.token("admin"));
            faults = new ChaosFaults(s, rnd, fleet, server, admin, journal, background);
            upgrades = new UpgradeFaults(s, server, journal);
            fleet.startAll(Duration.ofSeconds(120));
            for (int round = 1; round <= s.rounds(); round++) {
                ObjectNode r = journal.event("round");
                r.put("round", round);
                journal.write(r);
                fleet.storm(fleet.pickSlot(rnd), pick(USERS), pick(SCOPES), 1 + rnd.nextInt(4));
                int actions = 1 + rnd.nextInt(3);
                for (int a = 0; a < actions; a++) {
                    step();
                }
                Thread.sleep(150 + rnd.nextInt(450));
                if (round % 25 == 0 || round == s.rounds()) {
                    s.progress()
                            .printf(
                                    "chaos: round %d/%d kills=%d faults=%d%n",
                                    round, s.rounds(), faults.kills(), faultCount());
                }
            }
            drain();
            return check();
        } finally {
            background.shutdownNow();
            fleet.killAll();
            server.stop();
            journal.close();
        }
    }

    /** One action, chosen by the seed. */
    private void step() throws IOException, InterruptedException {
        int dice = rnd.nextInt(100);
        String user = pick(USERS);
        String scope = pick(SCOPES);
        if (dice < 28) {
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                fleet.edit(fleet.pickSlot(rnd), user, scope, "r" + rnd.nextInt(4));
            }
        } else if (dice < 52) {
            fleet.storm(fleet.pickSlot(rnd), user, scope, 2 + rnd.nextInt(4));
            if (rnd.nextBoolean()) {
                fleet.storm(fleet.pickSlot(rnd), pick(USERS), pick(SCOPES), 2 + rnd.nextInt(3));
            }
        } else if (dice < 62) {
            faults.killAtPoint(fleet.pickSlot(rnd), pick(CrashPoints.ALL), user, scope);
        } else if (dice < 65) {
            faults.killNow(fleet.pickSlot(rnd), "random moment");
        } else if (dice < 73) {
            faults.serverFault();
        } else if (dice < 75) {
            faults.freezeServer();
        } else if (dice < 77) {
            faults.restartServer();
        } else if (dice < 83) {
            long minutes = 1 + rnd.nextInt(180);
            faults.jumpClock(fleet.pickSlot(rnd), (rnd.nextBoolean() ? 1 : -1) * minutes * 60_000);
        } else if (dice < 85) {
            faults.pause(fleet.pickSlot(rnd));
        } else if (dice < 87) {
            faults.pauseAtPoint(rnd.nextInt(fleet.slots() - 1), pick(CrashPoints.ALL), user, scope);
        } else if (dice < 91) {
            fleet.send(fleet.pickSlot(rnd), cmd("switch").put("user", user));
        } else if (dice < 93) {
            upgrades.killDuringMigration(user, scope, 1 + rnd.nextInt(upgrades.statements()), 1 + rnd.nextInt(3));
        } else {
            fleet.send(fleet.pickSlot(rnd), cmd("cancel").put("user", user).put("scope", scope));
        }
    }

    /** Ends the faults, brings every process back, and settles every key on every device. */
    private void drain() throws IOException, InterruptedException {
        s.progress().println("chaos: draining");
        journal.write(journal.event("drain"));
        upgrades.drain();
        faults.drain();
        fleet.settleAll();
    }

    private ChaosReport check() throws IOException {
        Evidence ev = FinalEvidence.read(
                new FinalEvidence.Sources() {
                    @Override
                    public void stopClients() {
                        fleet.quitAll();
                    }

                    @Override
                    public List<JsonNode> audit() throws IOException {
                        return admin.audit();
                    }

                    @Override
                    public Map<String, List<JsonNode>> serverRecords() throws IOException {
                        Map<String, List<JsonNode>> records = new HashMap<>();
                        for (String u : USERS) {
                            for (String sc : SCOPES) {
                                records.put(u + "|" + sc, admin.records(server.url(), server.token(u), u, sc));
                            }
                        }
                        return records;
                    }

                    @Override
                    public Map<String, Evidence.Device> devices() {
                        Map<String, Evidence.Device> devices = new HashMap<>(fleet.evidence());
                        devices.putAll(upgrades.evidence());
                        return devices;
                    }

                    @Override
                    public List<JsonNode> journals() throws IOException {
                        return JournalFiles.readAll(s.workDir().resolve("journals"));
                    }
                },
                s.leaseTtl(),
                s.takeoverBound());
        ChaosReport report = Checker.check(
                ev, new ChaosReport.Counts(s.rounds(), faults.kills() + upgrades.kills(), faultCount(), 0));
        s.progress()
                .printf(
                        "chaos: upgrades: %d devices killed during a migration, %d not opened again%n",
                        upgrades.kills(), upgrades.violations().size());
        return report.withViolations(upgrades.violations());
    }

    /** Faults so far: those injected, and every agent start on moved OS time. */
    private int faultCount() {
        return faults.injected() + osTime.moved();
    }

    private <T> T pick(List<T> list) {
        return list.get(rnd.nextInt(list.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
