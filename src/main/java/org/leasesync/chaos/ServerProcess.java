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
 * The reference server as a child process ({@code leasesync serve --audit}) on a fixed port and
 * data directory, so that it can be killed with {@code kill -9} and started again with its data
 * and tokens. Not thread-safe: the harness's main thread owns it.
 */
final class ServerProcess {

    private final List<String> baseCommand;
    private final int port;
    private final Path dataDir;
    private final Path log;
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private Process process;

    ServerProcess(List<String> javaCommand, int port, Path dataDir, Path log) {
        this.baseCommand = javaCommand;
        this.port = port;
        this.dataDir = dataDir;
        this.log = log;
    }

    String url() {
        return "http://127.0.0.1:" + port;
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

    /** Starts the server and waits until it listens (up to 60 s, retrying while the port is busy). */
    void start() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        IOException last = null;
        while (System.nanoTime() < deadline) {
            List<String> cmd = new ArrayList<>(baseCommand);
            cmd.addAll(List.of("serve", "--port", String.valueOf(port), "--data-dir", dataDir.toString(), "--audit"));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
            process = pb.start();
            CompletableFuture<Boolean> listening = new CompletableFuture<>();
            Process p = process;
            Thread reader = new Thread(() -> read(p, listening), "chaos-server-reader");
            reader.setDaemon(true);
            reader.start();
            try {
                if (listening.get(30, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                last = new IOException("the server did not start: " + e);
            }
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(500);
        }
        throw last != null ? last : new IOException("the server did not start within 60 s; see " + log);
    }

    /** {@code kill -9}, and waits until it is gone. */
    void kill9() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** SIGTERM, then waits for a clean stop (kills it after 15 s). */
    void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
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
