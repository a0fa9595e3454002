package org.leasesync.chaos;

import static org.leasesync.chaos.AgentProcess.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The client processes of a chaos run, one {@code chaos-agent} per slot: slots {@code 0..n-2} are
 * {@code device-a} (one data directory, so one task registry and one client id), the last slot is
 * {@code device-b} (a second machine of the same users). Starts each slot (again, after a kill)
 * against the one server with the OS time {@link OsTimeFaults} gives that start, journals its start
 * and any exit nobody asked for, hands its crash-point hits to a {@link HitListener}, picks
 * processes, sends them commands, and at the end settles every key and reads each device's
 * database.
 *
 * <p>Unlike the cluster's {@link ClientFleet} its processes hit crash points, run on moved OS time
 * and are restarted by the faults while the rounds go on.
 *
 * <p>Thread-safe: the main thread, background threads (restarts after a kill, scheduled triggers)
 * and the agents' reader threads all use it; the slots are an atomic array. A dead slot is started
 * again by one thread: a background thread while the rounds go on, the main thread once the drain
 * has stopped the background work. Blocking methods say so.
 */
final class ChaosFleet {

    /** Told when an armed crash point fires in an agent, on that agent's reader thread. */
    @FunctionalInterface
    interface HitListener {

        /** The process of {@code slot} started as {@code incarnation} reached the point {@code hit} names. */
        void hit(int slot, int incarnation, JsonNode hit);
    }

    private final ChaosHarness.Settings s;
    private final ServerProcess server;
    private final Journal journal;
    private final OsTimeFaults osTime;
    private final HitListener hits;
    private final AtomicReferenceArray<AgentProcess> agents;
    private final AtomicInteger edits = new AtomicInteger();

    /**
     * @param settings the run's settings ({@code agents} processes on device A, one on device B)
     * @param server the server every agent talks to; read when an agent starts, so it may start later
     * @param journal the harness journal (agent starts and exits)
     * @param osTime the OS time of each start
     * @param hits where crash-point hits go
     */
    ChaosFleet(
            ChaosHarness.Settings settings,
            ServerProcess server,
            Journal journal,
            OsTimeFaults osTime,
            HitListener hits) {
        this.s = settings;
        this.server = server;
        this.journal = journal;
        this.osTime = osTime;
        this.hits = hits;
        this.agents = new AtomicReferenceArray<>(settings.agents() + 1);
    }

    /** Agent slots, both devices together. */
    int slots() {
        return agents.length();
    }

    /** The process of {@code slot} now: null before its first start; it may be dead or stopped. */
    AgentProcess agent(int slot) {
        return agents.get(slot);
    }

    /** Slots 0..agents-1 are device A; the last slot is device B. */
    String device(int slot) {
        return slot == agents.length() - 1 ? "device-b" : "device-a";
    }

    /** A random slot (either device), drawn from {@code rnd}. */
    int pickSlot(Random rnd) {
        return rnd.nextInt(agents.length());
    }

    /**
     * A random usable process of device A, or -1 when there is none. Drawn from the thread's own
     * random source: this is called from background threads too, where the schedule's sequence
     * must not be used.
     */
    int pickUsableOnDeviceA() {
        List<Integer> usable = new ArrayList<>();
        for (int slot = 0; slot < agents.length() - 1; slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.usable()) {
                usable.add(slot);
            }
        }
        return usable.isEmpty() ? -1 : usable.get(ThreadLocalRandom.current().nextInt(usable.size()));
    }

    /** Sends a command to a usable process; a process that is not usable (dead, starting, stopped) gets none. */
    void send(int slot, ObjectNode command) {
        AgentProcess a = agents.get(slot);
        if (a != null && a.usable()) {
            a.send(command);
        }
    }

    /** One local edit of {@code record}, numbered across the fleet (a process that is not usable uses its number up). */
    void edit(int slot, String user, String scope, String record) {
        send(
                slot,
                cmd("edit")
                        .put("user", user)
                        .put("scope", scope)
                        .put("record", record)
                        .put("n", edits.incrementAndGet()));
    }

    /** A trigger storm: syncs of the key from {@code threads} threads at once, each of a mixed source. */
    void storm(int slot, String user, String scope, int threads) {
        send(
                slot,
                cmd("trigger")
                        .put("user", user)
                        .put("scope", scope)
                        .put("source", "mixed")
                        .put("threads", threads));
    }

    /** Starts every slot and waits until each is ready (bounded by {@code timeout}). Blocks. */
    void startAll(Duration timeout) throws IOException, InterruptedException {
        for (int slot = 0; slot < agents.length(); slot++) {
            start(slot, 0);
        }
        awaitReady(timeout);
    }

    /**
     * Starts the process of {@code slot} as {@code incarnation} (0 the first time) and journals it;
     * does not wait for it to be ready.
     */
    void start(int slot, int incarnation) throws IOException {
        String dev = device(slot);
        List<String> cmd = new ArrayList<>(s.javaCommand());
        cmd.addAll(List.of(
                "chaos-agent",
                "--data-dir",
                dataDir(dev).toString(),
                "--server",
                server.url(),
                "--token",
                "alice=" + server.token("alice"),
                "--token",
                "bob=" + server.token("bob"),
                "--journal",
                s.workDir()
                        .resolve("journals")
                        .resolve(dev + "-agent" + slot + "-" + incarnation + ".jsonl")
                        .toString(),
                "--lease-ttl",
                s.leaseTtl().toMillis() + "ms",
                "--call-timeout",
                s.callTimeout().toMillis() + "ms"));
        OsTime os = osTime.forStart(slot, incarnation);
        AgentProcess a = AgentProcess.start(
                slot,
                incarnation,
                cmd,
                osTime.environment(os),
                s.workDir().resolve("logs").resolve("agent" + slot + ".log"),
                hit -> hits.hit(slot, incarnation, hit));
        agents.set(slot, a);
        a.onUnexpectedExit(
                () -> { // e.g. a crash: its leases may be taken over at once, as after a kill
                    ObjectNode x = journal.event("agent-exit");
                    x.put("victim", a.pid());
                    x.put("slot", slot);
                    journal.write(x);
                });
        osTime.started(os);
        ObjectNode e = journal.event("agent-start");
        e.put("slot", slot);
        e.put("agentPid", a.pid());
        e.put("device", dev);
        e.put("osTime", os.describe());
        journal.write(e);
    }

    /**
     * The drain's second half, once the faults have ended: brings every process back (continued if
     * stopped, started again if dead), then settles every key on device A's first process and on
     * device B's, twice, printing each key that does not settle. Blocks (each settle is bounded by
     * 90 s).
     */
    void settleAll() throws IOException, InterruptedException {
        bringBack();
        for (int round = 0; round < 2; round++) { // twice: device B's pushes reach device A and back
            for (int slot : new int[] {0, agents.length() - 1}) {
                // A process killed since (a point it had armed fired on its way out of the faults)
                // left its runs recorded as running: only a run of a live process recovers them.
                bringBack();
                List<CompletableFuture<JsonNode>> settled = new ArrayList<>();
                for (String u : ChaosHarness.USERS) {
                    for (String sc : ChaosHarness.SCOPES) {
                        settled.add(agents.get(slot)
                                .send(cmd("settle")
                                        .put("user", u)
                                        .put("scope", sc)
                                        .put("timeoutMs", 60_000)));
                    }
                }
                for (CompletableFuture<JsonNode> f : settled) {
                    try {
                        JsonNode r = f.get(90, TimeUnit.SECONDS);
                        if (!r.path("settled").asBoolean()) {
                            s.progress().println("chaos: did not settle: " + r);
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        s.progress().println("chaos: settle failed: " + e);
                    }
                }
            }
        }
    }

    /** Continues every stopped process, starts again every dead one, and waits until all are ready. */
    private void bringBack() throws IOException, InterruptedException {
        for (int slot = 0; slot < agents.length(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.stopped()) {
                a.sigcont();
            }
            if (a == null || !a.alive()) {
                start(slot, a == null ? 0 : a.incarnation + 1);
            }
        }
        awaitReady(Duration.ofSeconds(120));
    }

    /** Asks every process to quit (kills those that do not within 20 s). Blocks. */
    void quitAll() {
        for (int slot = 0; slot < agents.length(); slot++) {
            agents.get(slot).quit(20);
        }
    }

    /** Kills every process still running (the harness's last resort on the way out). */
    void killAll() {
        for (int slot = 0; slot < agents.length(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.alive()) {
                a.kill9();
            }
        }
    }

    /** Each device's local database after {@link #quitAll}, by device name. Blocks on the files. */
    Map<String, Evidence.Device> evidence() {
        Map<String, Evidence.Device> devices = new HashMap<>();
        devices.put("device-a", LocalEvidence.read(dataDir("device-a")));
        devices.put("device-b", LocalEvidence.read(dataDir("device-b")));
        return devices;
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int slot = 0; slot < agents.length(); slot++) {
            while (true) {
                AgentProcess a = agents.get(slot);
                try {
                    a.ready().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (ExecutionException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("agent " + slot + " does not start; see "
                                + s.workDir().resolve("logs").resolve("agent" + slot + ".log"));
                    }
                    try {
                        start(slot, a.incarnation + 1); // e.g. the database was changing hosts
                    } catch (IOException io) {
                        throw new IllegalStateException("cannot start agent " + slot + ": " + io.getMessage(), io);
                    }
                } catch (TimeoutException e) {
                    throw new IllegalStateException("agent " + slot + " was not ready within " + timeout);
                }
            }
        }
    }

    private Path dataDir(String device) {
        return s.workDir().resolve(device);
    }
}
