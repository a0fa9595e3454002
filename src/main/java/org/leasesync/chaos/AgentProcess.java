package org.leasesync.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The harness's handle on one {@code chaos-agent} child process: sends commands, matches answers,
 * forwards crash-point hits, and kills ({@code SIGKILL}), stops ({@code SIGSTOP}) and continues
 * ({@code SIGCONT}) it. Thread-safe.
 */
final class AgentProcess {

    final int slot;
    final int incarnation;
    private final Process process;
    private final OutputStream stdin;
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<JsonNode> ready = new CompletableFuture<>();
    private final CompletableFuture<Integer> migrationPaused = new CompletableFuture<>();
    private volatile boolean stopped;
    private volatile boolean killed;

    private AgentProcess(int slot, int incarnation, Process process, Consumer<JsonNode> onHit) {
        this.slot = slot;
        this.incarnation = incarnation;
        this.process = process;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(() -> read(onHit), "chaos-agent-" + slot + "-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code command} with {@code env} added to its environment, its standard error going to
     * {@code log}. Does not wait for it to be ready.
     */
    static AgentProcess start(
            int slot,
            int incarnation,
            List<String> command,
            Map<String, String> env,
            Path log,
            Consumer<JsonNode> onHit)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return new AgentProcess(slot, incarnation, pb.start(), onHit);
    }

    /** A command for an agent, {@code {"cmd": name}}; the caller adds its arguments. */
    static ObjectNode cmd(String name) {
        return Journal.JSON.createObjectNode().put("cmd", name);
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Whether it is stopped with SIGSTOP (and not continued yet). */
    boolean stopped() {
        return stopped;
    }

    /** Usable for commands: alive, ready and not stopped. */
    boolean usable() {
        return alive() && !stopped && ready.isDone() && !ready.isCompletedExceptionally();
    }

    /** Completes with the agent's ready line, or exceptionally if it died first. */
    CompletableFuture<JsonNode> ready() {
        return ready;
    }

    /**
     * Completes with k when the agent, started with the store's migration probe set to pause after
     * statement k, has reached it; exceptionally if it died first. Never completes otherwise.
     */
    CompletableFuture<Integer> migrationPaused() {
        return migrationPaused;
    }

    /** Sends a command; the future completes with its answer (or exceptionally if the process dies). */
    CompletableFuture<JsonNode> send(ObjectNode cmd) {
        long id = ids.incrementAndGet();
        cmd.put("id", id);
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        try {
            synchronized (stdin) {
                stdin.write((cmd.toString() + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            }
        } catch (IOException e) {
            pending.remove(id);
            answer.completeExceptionally(e);
        }
        return answer;
    }

    /**
     * Runs {@code action} once the process has exited on its own (not through {@link #kill9} or
     * {@link #quit}), on a JDK thread.
     */
    void onUnexpectedExit(Runnable action) {
        process.onExit().thenRun(() -> {
            if (!killed) {
                action.run();
            }
        });
    }

    /** {@code kill -9}; waits until the process is gone. */
    void kill9() {
        killed = true;
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        failPending("killed");
    }

    void sigstop() {
        signal("STOP");
        stopped = true;
    }

    void sigcont() {
        signal("CONT");
        stopped = false;
    }

    /** Asks it to quit and waits up to {@code seconds}; kills it if it does not. */
    void quit(int seconds) {
        if (!alive()) {
            return;
        }
        if (stopped) {
            sigcont();
        }
        killed = true; // asked to end: not an unexpected exit
        try {
            send(Journal.JSON.createObjectNode().put("cmd", "quit")).get(seconds, TimeUnit.SECONDS);
            process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            // falls through to the kill
        }
        if (alive()) {
            kill9();
        }
    }

    private void signal(String name) {
        try {
            Process p = new ProcessBuilder("/bin/sh", "-c", "kill -" + name + " " + process.pid()).start();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot send SIG" + name + " to " + process.pid(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void read(Consumer<JsonNode> onHit) {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith(UpgradeFaults.PAUSED_LINE)) {
                    migrationPaused.complete(Integer.valueOf(
                            line.substring(UpgradeFaults.PAUSED_LINE.length()).trim()));
                    continue;
                }
                JsonNode msg;
                try {
                    msg = Journal.JSON.readTree(line);
                } catch (IOException e) {
                    continue; // not a protocol line
                }
                switch (msg.path("type").asText()) {
                    case "agent-ready" -> ready.complete(msg);
                    case "hit" -> onHit.accept(msg);
                    case "reply" -> {
                        CompletableFuture<JsonNode> f =
                                pending.remove(msg.path("id").asLong());
                        if (f != null) {
                            f.complete(msg);
                        }
                    }
                    default -> {}
                }
            }
        } catch (IOException e) {
            // the process went away
        }
        ready.completeExceptionally(new IllegalStateException("agent " + slot + " exited before it was ready"));
        migrationPaused.completeExceptionally(new IllegalStateException("agent " + slot + " exited before the pause"));
        failPending("exited");
    }

    private void failPending(String why) {
        for (Long id : List.copyOf(pending.keySet())) {
            CompletableFuture<JsonNode> f = pending.remove(id);
            if (f != null) {
                f.completeExceptionally(new IllegalStateException("agent " + slot + " " + why));
            }
        }
    }
}
