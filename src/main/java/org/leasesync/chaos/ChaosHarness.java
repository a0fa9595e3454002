package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The chaos harness: starts the reference server and client processes, injects seeded random
 * faults for N rounds, drains, then hands the history to the {@link Checker}.
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
    record Settings(int rounds, long seed, int agents, Path workDir, Duration leaseTtl, Duration callTimeout,
                    List<String> javaCommand, PrintStream progress, OsTime.Libraries osTime) {

        Settings {
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
            }
            if (agents < 2 || agents > 8) {
                throw new IllegalArgumentException("--agents must be 2..8, got " + agents);
            }
            javaCommand = List.copyOf(javaCommand);
        }
    }

    static final List<String> USERS = List.of("alice", "bob");
    static final List<String> SCOPES = List.of("course_sync", "message_sync", "backup");
    private static final List<String> POINTS = List.of("pull.requesting", "pull.applied", "push.checkpointed",
            "push.answered", "push.confirmed", "run.done");

    private final Settings s;
    private final Random rnd;
    private final AtomicReferenceArray<AgentProcess> agents;
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger faults = new AtomicInteger();
    /** Agent starts per OS time ({@link OsTime#describe()} of its kind: normal, ahead, behind, btime). */
    private final java.util.Map<OsTime.Kind, AtomicInteger> osTimeStarts = new java.util.EnumMap<>(OsTime.Kind.class);
    private final ScheduledExecutorService background = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "chaos-harness");
        t.setDaemon(true);
        return t;
    });
    private Journal journal;
    private ServerProcess server;
    private AdminClient admin;
    private int editCounter;
    private volatile boolean draining;

    ChaosHarness(Settings settings) {
        this.s = settings;
        this.rnd = new Random(settings.seed());
        this.agents = new AtomicReferenceArray<>(settings.agents() + 1);
        for (OsTime.Kind k : OsTime.Kind.values()) {
            osTimeStarts.put(k, new AtomicInteger());
        }
    }

    /**
     * Agent starts per OS time, {@code os_time normal=N wall_ahead=A wall_behind=B btime=C}; each
     * non-normal start is also counted in {@code faults}.
     */
    String osTimeLine() {
        return "os_time normal=" + osTimeStarts.get(OsTime.Kind.NORMAL) + " wall_ahead=" + osTimeStarts.get(OsTime.Kind.AHEAD)
                + " wall_behind=" + osTimeStarts.get(OsTime.Kind.BEHIND) + " btime=" + osTimeStarts.get(OsTime.Kind.BTIME);
    }

    /** Starts of agents of the given OS time kind so far. */
    int osTimeStarts(OsTime.Kind kind) {
        return osTimeStarts.get(kind).get();
    }

    /**
     * The OS time an agent starts with. First starts: the first process on the machine's clock (it
     * opens, and so hosts, device A's database first), the second with its wall clock 3 h ahead, the
     * third (and more) started after a 5 s clock step as {@code btime} shows it (so it judges the
     * older processes' starts through a moved {@code btime}), device B 3 h behind. Restarts: random,
     * from the seed, the slot and the incarnation (restarts happen on background threads, so the
     * schedule's own random sequence is not used).
     */
    private OsTime osTimeFor(int slot, int incarnation) {
        if (s.osTime() == null) {
            return OsTime.NORMAL;
        }
        if (incarnation == 0) {
            if (slot == agents.length() - 1) {
                return new OsTime(OsTime.Kind.BEHIND, 3);
            }
            return switch (slot) {
                case 0 -> OsTime.NORMAL;
                case 1 -> new OsTime(OsTime.Kind.AHEAD, 3);
                default -> new OsTime(OsTime.Kind.BTIME, slot % 2 == 0 ? 5 : -5);
            };
        }
        // SplittableRandom mixes its seed: neighbouring seeds (next incarnation) draw independently,
        // where java.util.Random's first draws from neighbouring seeds are alike
        return OsTime.random(new java.util.SplittableRandom(s.seed() * 1_000_003L + slot * 7_919L + incarnation));
    }

    /** Runs the whole experiment and checks it. Blocks for the length of the run. */
    ChaosReport run() throws IOException, InterruptedException {
        Path journals = Files.createDirectories(s.workDir().resolve("journals"));
        Path logs = Files.createDirectories(s.workDir().resolve("logs"));
        journal = new Journal(journals.resolve("harness.jsonl"));
        server = ServerProcess.h2(s.javaCommand(), freePort(), Files.createDirectories(s.workDir().resolve("server")),
                logs.resolve("server.log"));
        try {
            server.start();
            journal.write(journal.event("server-start"));
            admin = new AdminClient(server.url(), server.token("admin"));
            for (int slot = 0; slot < agents.length(); slot++) {
                startAgent(slot, 0);
            }
            awaitReady(Duration.ofSeconds(120));
            for (int round = 1; round <= s.rounds(); round++) {
                ObjectNode r = journal.event("round");
                r.put("round", round);
                journal.write(r);
                storm(pickAgent(), pick(USERS), pick(SCOPES), 1 + rnd.nextInt(4));
                int actions = 1 + rnd.nextInt(3);
                for (int a = 0; a < actions; a++) {
                    step();
                }
                Thread.sleep(150 + rnd.nextInt(450));
                if (round % 25 == 0 || round == s.rounds()) {
                    s.progress().printf("chaos: round %d/%d kills=%d faults=%d%n", round, s.rounds(), kills.get(), faults.get());
                }
            }
            drain();
            return check();
        } finally {
            background.shutdownNow();
            for (int slot = 0; slot < agents.length(); slot++) {
                AgentProcess a = agents.get(slot);
                if (a != null && a.alive()) {
                    a.kill9();
                }
            }
            server.stop();
            journal.close();
        }
    }

    // ---- actions --------------------------------------------------------------------------------

    private void step() throws IOException, InterruptedException {
        int dice = rnd.nextInt(100);
        String user = pick(USERS);
        String scope = pick(SCOPES);
        if (dice < 28) {
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                edit(pickAgent(), user, scope, "r" + rnd.nextInt(4));
            }
        } else if (dice < 52) {
            storm(pickAgent(), user, scope, 2 + rnd.nextInt(4));
            if (rnd.nextBoolean()) {
                storm(pickAgent(), pick(USERS), pick(SCOPES), 2 + rnd.nextInt(3));
            }
        } else if (dice < 62) {
            killAtPoint(pickAgent(), pick(POINTS), user, scope);
        } else if (dice < 65) {
            killNow(pickAgent(), "random moment");
        } else if (dice < 75) {
            serverFault();
        } else if (dice < 77) {
            restartServer();
        } else if (dice < 83) {
            long minutes = 1 + rnd.nextInt(180);
            send(pickAgent(), cmd("jump").put("millis", (rnd.nextBoolean() ? 1 : -1) * minutes * 60_000));
            faults.incrementAndGet();
        } else if (dice < 85) {
            pause(pickAgent());
        } else if (dice < 87) {
            pauseAtPoint(rnd.nextInt(agents.length() - 1), pick(POINTS), user, scope);
        } else if (dice < 93) {
            send(pickAgent(), cmd("switch").put("user", user));
        } else {
            send(pickAgent(), cmd("cancel").put("user", user).put("scope", scope));
        }
    }

    private void edit(int slot, String user, String scope, String record) {
        send(slot, cmd("edit").put("user", user).put("scope", scope).put("record", record).put("n", ++editCounter));
    }

    private void storm(int slot, String user, String scope, int threads) {
        send(slot, cmd("trigger").put("user", user).put("scope", scope).put("source", "mixed").put("threads", threads));
    }

    /** Arms a crash point and triggers a run that will reach it; kills at the hit, else after 4 s anyway. */
    private void killAtPoint(int slot, String point, String user, String scope) {
        armAndRun(slot, point, false, user, scope);
    }

    /**
     * Arms a point in pause mode: the run that reaches it is frozen there ({@code SIGSTOP}) for 1.3–2
     * TTLs while another process takes its key over, then woken: it must learn it lost the lease
     * before it writes anything, and its late requests must be refused.
     */
    private void pauseAtPoint(int slot, String point, String user, String scope) {
        armAndRun(slot, point, true, user, scope);
    }

    private void armAndRun(int slot, String point, boolean pause, String user, String scope) {
        AgentProcess a = agents.get(slot);
        if (a == null || !a.usable()) {
            return;
        }
        if (draining) {
            return;
        }
        if (point.startsWith("push")) {
            edit(slot, user, scope, "r" + rnd.nextInt(4));
        }
        send(slot, cmd("arm").put("point", point).put("pause", pause));
        storm(slot, user, scope, 1);
        int incarnation = a.incarnation;
        background.schedule(() -> {
            AgentProcess now = agents.get(slot);
            if (now != null && now.incarnation == incarnation && now.alive() && !now.stopped()) {
                send(slot, cmd("disarm"));
            }
        }, 4, TimeUnit.SECONDS);
    }

    /** Called on the agent's reader thread when an armed point fires: kill -9 at once. */
    private void onHit(int slot, int incarnation, JsonNode hit) {
        AgentProcess a = agents.get(slot);
        if (a == null || a.incarnation != incarnation) {
            return;
        }
        if (hit.path("pause").asBoolean()) {
            frozenAt(a, hit);
            return;
        }
        kill(a, "crash point " + hit.path("point").asText());
        if (device(slot).equals("device-a")) {
            recover(List.of(hit.path("key").asText()));
        }
    }

    private void killNow(int slot, String why) {
        AgentProcess a = agents.get(slot);
        if (a == null || !a.alive() || a.stopped()) {
            return;
        }
        kill(a, why);
        if (!device(slot).equals("device-a")) {
            return;
        }
        List<String> keys = new ArrayList<>();
        for (String u : USERS) {
            for (String sc : SCOPES) {
                keys.add(u + "|" + sc);
            }
        }
        recover(keys);
    }

    private void kill(AgentProcess a, String why) {
        long pid = a.pid();
        long sent = System.nanoTime();
        a.kill9();
        ObjectNode e = journal.event("kill");
        e.put("sent", sent);   // before SIGKILL: the victim may be dead from here on
        e.put("victim", pid);
        e.put("slot", a.slot);
        e.put("device", device(a.slot));
        e.put("why", why);
        e.put("exited", !a.alive());   // false: still exiting after 10 s (e.g. stuck in I/O), not yet provably dead
        e.put("survivors", device(a.slot).equals("device-a"));   // device B has one process: nobody to take over
        journal.write(e);
        kills.incrementAndGet();
        if (draining) {
            return;   // the drain restarts it
        }
        background.execute(() -> {
            try {
                startAgent(a.slot, a.incarnation + 1);
            } catch (IOException ex) {
                s.progress().println("chaos: cannot restart agent " + a.slot + ": " + ex.getMessage());
            }
        });
    }

    /**
     * Triggers each key (source recovery) on another usable process of the same device, every 200 ms,
     * until one is granted or joins a run there, or the takeover bound has passed.
     */
    private void recover(List<String> keys) {
        if (draining) {
            return;
        }
        long deadline = System.nanoTime() + takeoverBound().toNanos();
        for (String key : keys) {
            String[] k = key.split("\\|");
            background.execute(() -> {
                while (System.nanoTime() < deadline) {
                    int slot = pickUsableOnDeviceA();
                    if (slot >= 0) {
                        try {
                            JsonNode r = agents.get(slot).send(cmd("trigger").put("user", k[0]).put("scope", k[1])
                                    .put("source", "recovery").put("threads", 1)).get(10, TimeUnit.SECONDS);
                            String result = r.path("results").path(0).asText();
                            if (!result.equals("joined-elsewhere") && !result.startsWith("error")) {
                                return;
                            }
                        } catch (Exception e) {
                            // that process went away: try another
                        }
                    }
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }
    }

    private void serverFault() throws IOException {
        ObjectNode f = Journal.JSON.createObjectNode();
        switch (rnd.nextInt(5)) {
            case 0 -> f.put("latencyMs", 20 + rnd.nextInt(280));
            case 1 -> f.put("failPush", 1 + rnd.nextInt(2));
            case 2 -> f.put("throttle", 1 + rnd.nextInt(3));
            case 3 -> f.put("dropAfterApply", 1);
            default -> f.put("delayAfterApplyMs", s.callTimeout().toMillis() + 500);
        }
        try {
            admin.setFaults(f);
        } catch (IOException e) {
            return;   // the server is restarting
        }
        ObjectNode e = journal.event("fault");
        e.set("fault", f);
        journal.write(e);
        faults.incrementAndGet();
        if (f.has("latencyMs") || f.has("delayAfterApplyMs")) {
            background.schedule(() -> {
                try {
                    admin.setFaults(Journal.JSON.createObjectNode().put("latencyMs", 0).put("delayAfterApplyMs", 0));
                } catch (IOException ignored) {
                    // the next clear or the drain does it
                }
            }, 1 + rnd.nextInt(3), TimeUnit.SECONDS);
        }
    }

    private void restartServer() throws IOException, InterruptedException {
        server.kill9();
        journal.write(journal.event("server-kill"));
        kills.incrementAndGet();
        server.start();
        journal.write(journal.event("server-start"));
    }

    /** The agent reached a paused point: freeze it, let another process take the key, wake it, let it go on. */
    private void frozenAt(AgentProcess a, JsonNode hit) {
        if (draining) {
            a.send(cmd("release"));
            return;
        }
        a.sigstop();
        ObjectNode e = journal.event("pause");
        e.put("victim", a.pid());
        e.put("slot", a.slot);
        e.put("device", device(a.slot));
        e.put("point", hit.path("point").asText());
        e.put("key", hit.path("key").asText());
        journal.write(e);
        faults.incrementAndGet();
        String[] k = hit.path("key").asText().split("\\|");
        background.schedule(() -> {
            int other = pickUsableOnDeviceA();
            if (other >= 0) {
                storm(other, k[0], k[1], 2);
            }
        }, s.leaseTtl().toMillis() + 100, TimeUnit.MILLISECONDS);
        long ms = s.leaseTtl().toMillis() * (13 + java.util.concurrent.ThreadLocalRandom.current().nextInt(8)) / 10;
        background.schedule(() -> {
            a.sigcont();
            ObjectNode r = journal.event("resume");
            r.put("victim", a.pid());
            journal.write(r);
            a.send(cmd("release"));
        }, ms, TimeUnit.MILLISECONDS);
    }

    /** SIGSTOP for 1.3 to 2 TTLs while the same device keeps triggering; then SIGCONT. */
    private void pause(int slot) {
        AgentProcess a = agents.get(slot);
        if (a == null || !a.usable()) {
            return;
        }
        a.sigstop();
        ObjectNode e = journal.event("pause");
        e.put("victim", a.pid());
        e.put("slot", slot);
        e.put("device", device(slot));
        journal.write(e);
        faults.incrementAndGet();
        long ms = s.leaseTtl().toMillis() * (13 + rnd.nextInt(8)) / 10;
        for (String u : USERS) {
            for (String sc : SCOPES) {
                int other = pickUsableOnDeviceA();
                if (other >= 0 && device(other).equals(device(slot))) {
                    background.schedule(() -> storm(other, u, sc, 1), s.leaseTtl().toMillis() + 200, TimeUnit.MILLISECONDS);
                }
            }
        }
        background.schedule(() -> {
            a.sigcont();
            ObjectNode r = journal.event("resume");
            r.put("victim", a.pid());
            journal.write(r);
        }, ms, TimeUnit.MILLISECONDS);
    }

    // ---- drain and check ------------------------------------------------------------------------

    /** Ends the faults, brings every process back, and settles every key on every device. */
    private void drain() throws IOException, InterruptedException {
        s.progress().println("chaos: draining");
        journal.write(journal.event("drain"));
        draining = true;
        List<CompletableFuture<JsonNode>> disarmed = new ArrayList<>();
        for (int slot = 0; slot < agents.length(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.alive()) {
                if (a.stopped()) {
                    a.sigcont();
                }
                disarmed.add(a.send(cmd("disarm")));
                a.send(cmd("release"));
            }
        }
        for (CompletableFuture<JsonNode> f : disarmed) {
            try {
                f.get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // killed at a point it had reached already: restarted below
            }
        }
        background.shutdown();
        background.awaitTermination(30, TimeUnit.SECONDS);
        admin.clearFaults();
        for (int slot = 0; slot < agents.length(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.stopped()) {
                a.sigcont();
            }
            if (a == null || !a.alive()) {
                startAgent(slot, a == null ? 0 : a.incarnation + 1);
            }
        }
        awaitReady(Duration.ofSeconds(120));
        for (int round = 0; round < 2; round++) {   // twice: device B's pushes reach device A and back
            for (int slot : new int[] {0, agents.length() - 1}) {
                List<CompletableFuture<JsonNode>> settled = new ArrayList<>();
                for (String u : USERS) {
                    for (String sc : SCOPES) {
                        settled.add(agents.get(slot).send(cmd("settle").put("user", u).put("scope", sc).put("timeoutMs", 60_000)));
                    }
                }
                for (CompletableFuture<JsonNode> f : settled) {
                    try {
                        JsonNode r = f.get(90, TimeUnit.SECONDS);
                        if (!r.path("settled").asBoolean()) {
                            s.progress().println("chaos: did not settle: " + r);
                        }
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        s.progress().println("chaos: settle failed: " + e);
                    }
                }
            }
        }
    }

    private ChaosReport check() throws IOException {
        Evidence ev = FinalEvidence.read(new FinalEvidence.Sources() {
            @Override
            public void stopClients() {
                for (int slot = 0; slot < agents.length(); slot++) {
                    agents.get(slot).quit(20);
                }
            }

            @Override
            public List<JsonNode> audit() throws IOException {
                return admin.audit();
            }

            @Override
            public java.util.Map<String, List<JsonNode>> serverRecords() throws IOException {
                java.util.Map<String, List<JsonNode>> records = new java.util.HashMap<>();
                for (String u : USERS) {
                    for (String sc : SCOPES) {
                        records.put(u + "|" + sc, admin.records(server.url(), server.token(u), u, sc));
                    }
                }
                return records;
            }

            @Override
            public java.util.Map<String, Evidence.Device> devices() {
                return java.util.Map.of("device-a", LocalEvidence.read(dataDir("device-a")),
                        "device-b", LocalEvidence.read(dataDir("device-b")));
            }

            @Override
            public List<JsonNode> journals() throws IOException {
                return JournalFiles.readAll(s.workDir().resolve("journals"));
            }
        }, s.leaseTtl(), takeoverBound());
        return Checker.check(ev, new ChaosReport.Counts(s.rounds(), kills.get(), faults.get(), 0));
    }

    /** A dead owner on this machine is provable at once; the bound is one TTL, as invariant 3 says. */
    private Duration takeoverBound() {
        return s.leaseTtl();
    }

    // ---- processes ------------------------------------------------------------------------------

    private void startAgent(int slot, int incarnation) throws IOException {
        String dev = device(slot);
        List<String> cmd = new ArrayList<>(s.javaCommand());
        cmd.addAll(List.of("chaos-agent", "--data-dir", dataDir(dev).toString(), "--server", server.url(),
                "--token", "alice=" + server.token("alice"), "--token", "bob=" + server.token("bob"),
                "--journal", s.workDir().resolve("journals").resolve(dev + "-agent" + slot + "-" + incarnation + ".jsonl").toString(),
                "--lease-ttl", s.leaseTtl().toMillis() + "ms", "--call-timeout", s.callTimeout().toMillis() + "ms"));
        OsTime os = osTimeFor(slot, incarnation);
        AgentProcess a = AgentProcess.start(slot, incarnation, cmd, os.environment(s.osTime()),
                s.workDir().resolve("logs").resolve("agent" + slot + ".log"), hit -> onHit(slot, incarnation, hit));
        agents.set(slot, a);
        a.onUnexpectedExit(() -> {   // e.g. a crash: its leases may be taken over at once, as after a kill
            ObjectNode x = journal.event("agent-exit");
            x.put("victim", a.pid());
            x.put("slot", slot);
            journal.write(x);
        });
        osTimeStarts.get(os.kind()).incrementAndGet();
        if (os.kind() != OsTime.Kind.NORMAL) {
            faults.incrementAndGet();
        }
        ObjectNode e = journal.event("agent-start");
        e.put("slot", slot);
        e.put("agentPid", a.pid());
        e.put("device", dev);
        e.put("osTime", os.describe());
        journal.write(e);
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int slot = 0; slot < agents.length(); slot++) {
            while (true) {
                AgentProcess a = agents.get(slot);
                try {
                    a.ready().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (java.util.concurrent.ExecutionException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("agent " + slot + " does not start; see "
                                + s.workDir().resolve("logs").resolve("agent" + slot + ".log"));
                    }
                    try {
                        startAgent(slot, a.incarnation + 1);   // e.g. the database was changing hosts
                    } catch (IOException io) {
                        throw new IllegalStateException("cannot start agent " + slot + ": " + io.getMessage(), io);
                    }
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new IllegalStateException("agent " + slot + " was not ready within " + timeout);
                }
            }
        }
    }

    private Path dataDir(String device) {
        return s.workDir().resolve(device);
    }

    /** Slots 0..agents-1 are device A; the last slot is device B. */
    private String device(int slot) {
        return slot == agents.length() - 1 ? "device-b" : "device-a";
    }

    private int pickAgent() {
        return rnd.nextInt(agents.length());
    }

    private int pickUsableOnDeviceA() {
        List<Integer> usable = new ArrayList<>();
        for (int slot = 0; slot < agents.length() - 1; slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.usable()) {
                usable.add(slot);
            }
        }
        return usable.isEmpty() ? -1 : usable.get(java.util.concurrent.ThreadLocalRandom.current().nextInt(usable.size()));
    }

    private void send(int slot, ObjectNode command) {
        AgentProcess a = agents.get(slot);
        if (a != null && a.usable()) {
            a.send(command);
        }
    }

    private <T> T pick(List<T> list) {
        return list.get(rnd.nextInt(list.size()));
    }

    private static ObjectNode cmd(String name) {
        return Journal.JSON.createObjectNode().put("cmd", name);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
