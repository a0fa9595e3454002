package org.leasesync.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The reference server as a child process ({@code leasesync serve --audit}) on a fixed address and
 * database, so that it can be killed with {@code kill -9} and started again with its data and
 * tokens: one H2 server with a data directory ({@link #h2}), or one instance of a cluster on a
 * shared PostgreSQL database. Not thread-safe: one thread at a time starts and kills it.
 */
final class ServerProcess {

    private final List<String> command;
    private final Map<String, String> env;
    private final String url;
    private final Path log;
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private volatile Process process;

    /**
     * @param command the whole command line ({@code ... serve ...}), started as it is on every start
     * @param env variables added to this process's environment (e.g. the database credentials)
     * @param url the base URL the server listens on
     * @param log where its standard error goes (appended)
     */
    ServerProcess(List<String> command, Map<String, String> env, String url, Path log) {
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.url = url;
        this.log = log;
    }

    /** {@code serve --port PORT --data-dir DIR --audit} on 127.0.0.1: the chaos harness's one server. */
    static ServerProcess h2(List<String> javaCommand, int port, Path dataDir, Path log) {
        List<String> cmd = new ArrayList<>(javaCommand);
        cmd.addAll(List.of(
                "serve",
                "--port",
                String.valueOf(port),
                "--data-dir",
                dataDir.toString(),
                "--audit",
                "--seed",
                "demo"));
        return new ServerProcess(cmd, Map.of(), "http://127.0.0.1:" + port, log);
    }

    String url() {
        return url;
    }

    /** Whether the process runs (false before the first start and after a kill). */
    boolean alive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** The bearer token of alice, bob and admin, as the server printed them. */
    String token(String user) {
        String t = tokens.get(user);
        if (t == null) {
            throw new IllegalStateException("the server printed no token for " + user);
        }
        return t;
    }

    long pid() {
        return process.pid();
    }

    /**
     * Starts the server and waits until it listens, starting it again while it exits at once (port
     * still busy, database not reachable yet). A process that is still starting is waited for, not
     * replaced: after a {@code kill -9} its start-up check of the database file can take a minute on
     * a loaded machine, and a replacement would only start that check again. Up to 3 minutes in all.
     */
    void start() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        IOException last = null;
        while (System.nanoTime() < deadline) {
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(env);
            pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
            process = pb.start();
            CompletableFuture<Boolean> listening = new CompletableFuture<>();
            Process p = process;
            Thread reader = new Thread(() -> read(p, listening), "chaos-server-reader");
            reader.setDaemon(true);
            reader.start();
            try {
                if (listening.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return;
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                last = new IOException("the server did not start: " + e);
            }
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(500);
        }
        throw last != null
                ? new IOException(last.getMessage() + "; see " + log, last)
                : new IOException("the server did not start within 3 minutes; see " + log);
    }

    /**
     * Sends {@code SIGSTOP} or {@code SIGCONT} to the running server: stopped, it still completes TCP
     * handshakes from its listen queue but answers nothing — a frozen instance. Blocks up to 10 s.
     */
    void signal(String name) throws InterruptedException {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-" + name, Long.toString(p.pid()))
                    .start()
                    .waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot send SIG" + name + " to the server " + p.pid(), e);
        }
    }

    /** {@code kill -9}, and waits until it is gone. */
    void kill9() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** SIGTERM, then waits for a clean stop (kills it after 15 s). */
    void stop() throws InterruptedException {
        Process p = process;
        if (p != null && p.isAlive()) {
            p.destroy();
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                kill9();
            }
        }
    }

    private void read(Process p, CompletableFuture<Boolean> listening) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] parts = line.trim().split(" ");
                if (parts.length == 3 && parts[0].equals("token")) {
                    tokens.put(parts[1], parts[2]);
                    if (parts[1].equals("admin")) {
                        listening.complete(true);
                    }
                }
            }
        } catch (IOException e) {
            // exited
        }
        listening.complete(false);
    }
}
