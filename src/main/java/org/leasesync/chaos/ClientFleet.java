package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The client devices of a cluster run: each device is one data directory ({@code WORK/device-x})
 * with one or more {@code chaos-agent} processes on it (real client runtimes with journals, see
 * {@link ChaosAgent}), all given every server URL in a device-specific order. Starts them through a
 * command prefix (e.g. the clients' network namespace), sends them commands, settles every key at
 * the end and reads each device's database for the checker.
 *
 * <p>Thread-safe for {@link #send} and {@link #slots}; the other methods are called from the
 * harness's main thread. Blocking methods say so.
 */
final class ClientFleet {

    /**
     * One device.
     *
     * @param name {@code device-a}, {@code device-b}, ... (the journal files start with it)
     * @param processes client processes on its data directory, 1..4
     * @param serverUrls every instance's URL, in this device's order of preference
     */
    record Device(String name, int processes, List<String> serverUrls) {
        Device {
            if (!name.matches("device-[a-z]")) {
                throw new IllegalArgumentException("device name must be device-a .. device-z, got '" + name + "'");
            }
            if (processes < 1 || processes > 4) {
                throw new IllegalArgumentException("processes per device must be 1..4, got " + processes);
            }
            serverUrls = List.copyOf(serverUrls);
        }
    }

    private final List<Device> devices;
    private final List<Integer> deviceOfSlot = new ArrayList<>();
    private final AtomicReferenceArray<AgentProcess> agents;
    private final List<String> prefix;
    private final List<String> javaCommand;
    private final Map<String, String> tokens;
    private final Path workDir;
    private final Duration leaseTtl;
    private final Duration callTimeout;
    private final PrintStream progress;

    ClientFleet(
            List<Device> devices,
            List<String> prefix,
            List<String> javaCommand,
            Map<String, String> tokens,
            Path workDir,
            Duration leaseTtl,
            Duration callTimeout,
            PrintStream progress) {
        this.devices = List.copyOf(devices);
        for (int d = 0; d < devices.size(); d++) {
            for (int p = 0; p < devices.get(d).processes(); p++) {
                deviceOfSlot.add(d);
            }
        }
        this.agents = new AtomicReferenceArray<>(deviceOfSlot.size());
        this.prefix = List.copyOf(prefix);
        this.javaCommand = List.copyOf(javaCommand);
        this.tokens = Map.copyOf(tokens);
        this.workDir = workDir;
        this.leaseTtl = leaseTtl;
        this.callTimeout = callTimeout;
        this.progress = progress;
    }

    /** Client processes, all devices together. */
    int slots() {
        return agents.length();
    }

    /** A random process (any device), drawn from {@code rnd}. */
    int pickSlot(java.util.Random rnd) {
        return rnd.nextInt(slots());
    }

    String device(int slot) {
        return devices.get(deviceOfSlot.get(slot)).name();
    }

    /** Starts every process and waits until each is ready (bounded by {@code timeout}). Blocks. */
    void startAll(Duration timeout) throws IOException, InterruptedException {
        for (int slot = 0; slot < slots(); slot++) {
            start(slot, 0);
        }
        awaitReady(timeout);
    }

    /** Sends a command to a usable process; a process that is not usable (dead, starting) gets none. */
    void send(int slot, ObjectNode command) {
        AgentProcess a = agents.get(slot);
        if (a != null && a.usable()) {
            a.send(command);
        }
    }

    /**
     * The drain: restarts dead processes, then on each device runs every key until its last run
     * succeeded and its outbox holds nothing sendable — twice, so each device sees the others' last
     * pushes. Blocks (each settle is bounded by 60 s).
     *
     * @return the keys that did not settle in the last pass ({@code device-x user|scope: last outcome (pending N, in
     *     conflict M)}); empty when all did
     */
    List<String> settleAll(List<String> users, List<String> scopes) throws IOException, InterruptedException {
        for (int slot = 0; slot < slots(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a == null || !a.alive()) {
                start(slot, a == null ? 0 : a.incarnation + 1);
            }
        }
        awaitReady(Duration.ofSeconds(120));
        List<String> unsettled = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            unsettled.clear();
            for (Device d : devices) {
                int slot = deviceOfSlot.indexOf(devices.indexOf(d));
                Map<String, CompletableFuture<JsonNode>> settled = new java.util.LinkedHashMap<>();
                for (String u : users) {
                    for (String sc : scopes) {
                        settled.put(
                                u + "|" + sc,
                                agents.get(slot)
                                        .send(Journal.JSON
                                                .createObjectNode()
                                                .put("cmd", "settle")
                                                .put("user", u)
                                                .put("scope", sc)
                                                .put("timeoutMs", 60_000)));
                    }
                }
                for (Map.Entry<String, CompletableFuture<JsonNode>> f : settled.entrySet()) {
                    try {
                        JsonNode r = f.getValue().get(90, TimeUnit.SECONDS);
                        if (!r.path("settled").asBoolean()) {
                            unsettled.add(d.name() + " " + f.getKey() + ": "
                                    + r.path("last").asText() + " (pending "
                                    + r.path("pending").asInt() + ", in conflict "
                                    + r.path("conflicts").asInt() + ")");
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        unsettled.add(d.name() + " " + f.getKey() + ": settle failed: " + e);
                    }
                }
            }
        }
        return List.copyOf(unsettled);
    }

    /** Asks every process to quit (kills those that do not within 20 s). Blocks. */
    void quitAll() {
        for (int slot = 0; slot < slots(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null) {
                a.quit(20);
            }
        }
    }

    /** Kills every process still running (the harness's last resort on the way out). */
    void killAll() {
        for (int slot = 0; slot < slots(); slot++) {
            AgentProcess a = agents.get(slot);
            if (a != null && a.alive()) {
                a.kill9();
            }
        }
    }

    /** Each device's local database after {@link #quitAll}, by device name. Blocks on the files. */
    Map<String, Evidence.Device> evidence() {
        Map<String, Evidence.Device> out = new HashMap<>();
        for (Device d : devices) {
            out.put(d.name(), LocalEvidence.read(workDir.resolve(d.name())));
        }
        return out;
    }

    private void start(int slot, int incarnation) throws IOException {
        Device d = devices.get(deviceOfSlot.get(slot));
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(javaCommand);
        cmd.addAll(List.of(
                "chaos-agent",
                "--data-dir",
                Files.createDirectories(workDir.resolve(d.name())).toString(),
                "--server",
                String.join(",", d.serverUrls()),
                "--journal",
                workDir.resolve("journals")
                        .resolve(d.name() + "-agent" + slot + "-" + incarnation + ".jsonl")
                        .toString(),
                "--lease-ttl",
                leaseTtl.toMillis() + "ms",
                "--call-timeout",
                callTimeout.toMillis() + "ms"));
        tokens.forEach((user, token) -> cmd.addAll(List.of("--token", user + "=" + token)));
        agents.set(
                slot,
                AgentProcess.start(
                        slot,
                        incarnation,
                        cmd,
                        java.util.Map.of(),
                        workDir.resolve("logs").resolve("agent" + slot + ".log"),
                        hit -> {}));
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int slot = 0; slot < slots(); slot++) {
            for (int attempt = 0; ; attempt++) {
                AgentProcess a = agents.get(slot);
                try {
                    a.ready().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (ExecutionException e) {
                    if (attempt >= 5 || System.nanoTime() > deadline) {
                        throw new IOException("client process " + slot + " does not start; see "
                                + workDir.resolve("logs").resolve("agent" + slot + ".log"));
                    }
                    start(slot, a.incarnation + 1); // e.g. the device's database was changing hosts
                } catch (TimeoutException e) {
                    throw new IOException("client process " + slot + " was not ready within " + timeout);
                }
            }
        }
    }
}
