package org.leasesync.chaos;

import static org.leasesync.chaos.AgentProcess.cmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The faults of a chaos run and what follows each: {@code kill -9} of an agent at an armed crash
 * point or at a random moment, its restart and a recovery trigger of its keys on another process of
 * the device; a freeze ({@code SIGSTOP}) at a crash point or at a random moment for longer than the
 * TTL while another process takes the key over, then {@code SIGCONT}; server faults (latency, 500,
 * 429 with a {@code Retry-After} of 1–3 s as delta-seconds or as an HTTP-date, drop-after-apply,
 * delay-after-apply beyond the call timeout) and their clearing; a
 * {@code kill -9} and restart of the server; wall-clock jumps. Each fault is journaled and counted;
 * {@link #drain} ends them all.
 *
 * <p>Every choice from the seed's random source is drawn on the harness's main thread, in call
 * order, so a seed gives the same schedule of actions; restarts, recoveries, heals and wake-ups run
 * on the background executor, and crash-point hits arrive on the agents' reader threads
 * ({@link #onHit}), which draw only from their own random sources. Counters and the drain flag are
 * safe from any thread; the other methods are called from the main thread. A kill waits up to 10 s
 * for its victim to exit, a freeze for its signal, a server fault for one admin call;
 * {@link #restartServer} and {@link #drain} block longer.
 */
final class ChaosFaults {

    private final ChaosHarness.Settings s;
    private final Random rnd;
    private final ChaosFleet fleet;
    private final ServerProcess server;
    private final AdminClient admin;
    private final Journal journal;
    private final ScheduledExecutorService background;
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger faults = new AtomicInteger();
    private volatile boolean draining;

    /**
     * @param settings the run's settings (TTL, call timeout, takeover bound, progress)
     * @param rnd the schedule's random source, used on the main thread only
     * @param fleet the agents
     * @param server the one server, started
     * @param admin its admin API
     * @param journal the harness journal
     * @param background where restarts, recoveries, heals and wake-ups run
     */
    ChaosFaults(
            ChaosHarness.Settings settings,
            Random rnd,
            ChaosFleet fleet,
            ServerProcess server,
            AdminClient admin,
            Journal journal,
            ScheduledExecutorService background) {
        this.s = settings;
        this.rnd = rnd;
        this.fleet = fleet;
        this.server = server;
        this.admin = admin;
        this.journal = journal;
        this.background = background;
    }

    /** Kills so far, of agents and of the server. */
    int kills() {
        return kills.get();
    }

    /** Faults injected so far other than kills (agents started on moved OS time are counted by {@link OsTimeFaults}). */
    int injected() {
        return faults.get();
    }

    /** Arms a crash point and triggers a run that will reach it; kills at the hit, else after 4 s anyway. */
    void killAtPoint(int slot, String point, String user, String scope) {
        armAndRun(slot, point, false, user, scope);
    }

    /**
     * Arms a point in pause mode: the run that reaches it is frozen there ({@code SIGSTOP}) for 1.3–2
     * TTLs while another process takes its key over, then woken: it must learn it lost the lease
     * before it writes anything, and its late requests must be refused.
     */
    void pauseAtPoint(int slot, String point, String user, String scope) {
        armAndRun(slot, point, true, user, scope);
    }

    private void armAndRun(int slot, String point, boolean pause, String user, String scope) {
        AgentProcess a = fleet.agent(slot);
        if (a == null || !a.usable()) {
            return;
        }
        if (draining) {
            return;
        }
        if (point.startsWith("push")) {
            fleet.edit(slot, user, scope, "r" + rnd.nextInt(4));
        }
        fleet.send(slot, cmd("arm").put("point", point).put("pause", pause));
        fleet.storm(slot, user, scope, 1);
        int incarnation = a.incarnation;
        background.schedule(
                () -> {
                    AgentProcess now = fleet.agent(slot);
                    if (now != null && now.incarnation == incarnation && now.alive() && !now.stopped()) {
                        fleet.send(slot, cmd("disarm"));
                    }
                },
                4,
                TimeUnit.SECONDS);
    }

    /** Called on the agent's reader thread when an armed point fires: kill -9 at once. */
    void onHit(int slot, int incarnation, JsonNode hit) {
        AgentProcess a = fleet.agent(slot);
        if (a == null || a.incarnation != incarnation) {
            return;
        }
        if (hit.path("pause").asBoolean()) {
            frozenAt(a, hit);
            return;
        }
        kill(a, "crash point " + hit.path("point").asText());
        if (fleet.device(slot).equals("device-a")) {
            recover(List.of(hit.path("key").asText()));
        }
    }

    /** {@code kill -9} of the agent of {@code slot} wherever it is, then recovery of every key on its device. */
    void killNow(int slot, String why) {
        AgentProcess a = fleet.agent(slot);
        if (a == null || !a.alive() || a.stopped()) {
            return;
        }
        kill(a, why);
        if (!fleet.device(slot).equals("device-a")) {
            return;
        }
        List<String> keys = new ArrayList<>();
        for (String u : ChaosHarness.USERS) {
            for (String sc : ChaosHarness.SCOPES) {
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
        e.put("sent", sent); // before SIGKILL: the victim may be dead from here on
        e.put("victim", pid);
        e.put("slot", a.slot);
        e.put("device", fleet.device(a.slot));
        e.put("why", why);
        e.put("exited", !a.alive()); // false: still exiting after 10 s (e.g. stuck in I/O), not yet provably dead
        e.put("survivors", fleet.device(a.slot).equals("device-a")); // device B has one process: nobody to take over
        journal.write(e);
        kills.incrementAndGet();
        if (draining) {
            return; // the drain restarts it
        }
        background.execute(() -> {
            try {
                fleet.start(a.slot, a.incarnation + 1);
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
        long deadline = System.nanoTime() + s.takeoverBound().toNanos();
        for (String key : keys) {
            String[] k = key.split("\\|");
            background.execute(() -> {
                while (System.nanoTime() < deadline) {
                    int slot = fleet.pickUsableOnDeviceA();
                    if (slot >= 0) {
                        try {
                            JsonNode r = fleet.agent(slot)
                                    .send(cmd("trigger")
                                            .put("user", k[0])
                                            .put("scope", k[1])
                                            .put("source", "recovery")
                                            .put("threads", 1))
                                    .get(10, TimeUnit.SECONDS);
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

    /** One server fault, switched on through the admin API; latency and delays are cleared after 1–3 s. */
    void serverFault() throws IOException {
        ObjectNode f = Journal.JSON.createObjectNode();
        switch (rnd.nextInt(5)) {
            case 0 -> f.put("latencyMs", 20 + rnd.nextInt(280));
            case 1 -> f.put("failPush", 1 + rnd.nextInt(2));
            case 2 ->
                f.put("throttle", 1 + rnd.nextInt(3))
                        .put("throttleRetryAfterSeconds", 1 + rnd.nextInt(3))
                        .put("throttleRetryAfterDate", rnd.nextBoolean());
            case 3 -> f.put("dropAfterApply", 1);
            default -> f.put("delayAfterApplyMs", s.callTimeout().toMillis() + 500);
        }
        try {
            admin.setFaults(f);
        } catch (IOException e) {
            return; // the server is restarting
        }
        ObjectNode e = journal.event("fault");
        e.set("fault", f);
        journal.write(e);
        faults.incrementAndGet();
        if (f.has("latencyMs") || f.has("delayAfterApplyMs")) {
            background.schedule(
                    () -> {
                        try {
                            admin.setFaults(Journal.JSON
                                    .createObjectNode()
                                    .put("latencyMs", 0)
                                    .put("delayAfterApplyMs", 0));
                        } catch (IOException ignored) {
                            // the next clear or the drain does it
                        }
                    },
                    1 + rnd.nextInt(3),
                    TimeUnit.SECONDS);
        }
    }

    /**
     * Freezes the server with {@code SIGSTOP} for 1–3 s, then continues it ({@code SIGCONT}): calls
     * time out with no answer, and a push it swallowed must be settled by asking before anything is
     * sent again. Blocks for the freeze.
     */
    void freezeServer() throws InterruptedException {
        server.signal("STOP");
        journal.write(journal.event("server-freeze"));
        faults.incrementAndGet();
        try {
            Thread.sleep(1000L + rnd.nextInt(2000));
        } finally {
            server.signal("CONT");
            journal.write(journal.event("server-thaw"));
        }
    }

    /** {@code kill -9} of the server and its start again. Blocks until it listens. */
    void restartServer() throws IOException, InterruptedException {
        server.kill9();
        journal.write(journal.event("server-kill"));
        kills.incrementAndGet();
        server.start();
        journal.write(journal.event("server-start"));
    }

    /** Moves the wall clock of the agent of {@code slot} by {@code millis} (either sign). */
    void jumpClock(int slot, long millis) {
        fleet.send(slot, cmd("jump").put("millis", millis));
        faults.incrementAndGet();
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
        e.put("device", fleet.device(a.slot));
        e.put("point", hit.path("point").asText());
        e.put("key", hit.path("key").asText());
        journal.write(e);
        faults.incrementAndGet();
        String[] k = hit.path("key").asText().split("\\|");
        background.schedule(
                () -> {
                    int other = fleet.pickUsableOnDeviceA();
                    if (other >= 0) {
                        fleet.storm(other, k[0], k[1], 2);
                    }
                },
                s.leaseTtl().toMillis() + 100,
                TimeUnit.MILLISECONDS);
        long ms = s.leaseTtl().toMillis() * (13 + ThreadLocalRandom.current().nextInt(8)) / 10;
        background.schedule(
                () -> {
                    a.sigcont();
                    ObjectNode r = journal.event("resume");
                    r.put("victim", a.pid());
                    journal.write(r);
                    a.send(cmd("release"));
                },
                ms,
                TimeUnit.MILLISECONDS);
    }

    /** SIGSTOP for 1.3 to 2 TTLs while the same device keeps triggering; then SIGCONT. */
    void pause(int slot) {
        AgentProcess a = fleet.agent(slot);
        if (a == null || !a.usable()) {
            return;
        }
        a.sigstop();
        ObjectNode e = journal.event("pause");
        e.put("victim", a.pid());
        e.put("slot", slot);
        e.put("device", fleet.device(slot));
        journal.write(e);
        faults.incrementAndGet();
        long ms = s.leaseTtl().toMillis() * (13 + rnd.nextInt(8)) / 10;
        for (String u : ChaosHarness.USERS) {
            for (String sc : ChaosHarness.SCOPES) {
                int other = fleet.pickUsableOnDeviceA();
                if (other >= 0 && fleet.device(other).equals(fleet.device(slot))) {
                    background.schedule(
                            () -> fleet.storm(other, u, sc, 1), s.leaseTtl().toMillis() + 200, TimeUnit.MILLISECONDS);
                }
            }
        }
        background.schedule(
                () -> {
                    a.sigcont();
                    ObjectNode r = journal.event("resume");
                    r.put("victim", a.pid());
                    journal.write(r);
                },
                ms,
                TimeUnit.MILLISECONDS);
    }

    /**
     * The drain's first half: no new fault from here on; every stopped agent is continued, every
     * armed point disarmed and every paused one released; the background work finishes (up to 30 s)
     * and the server's faults are cleared. Agents dead by then are restarted by
     * {@link ChaosFleet#settleAll}. Blocks.
     */
    void drain() throws IOException, InterruptedException {
        draining = true;
        List<CompletableFuture<JsonNode>> disarmed = new ArrayList<>();
        for (int slot = 0; slot < fleet.slots(); slot++) {
            AgentProcess a = fleet.agent(slot);
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
            } catch (ExecutionException | TimeoutException e) {
                // killed at a point it had reached already: the fleet's settle restarts it
            }
        }
        background.shutdown();
        background.awaitTermination(30, TimeUnit.SECONDS);
        admin.clearFaults();
    }
}
