package org.leasesync.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.leasesync.Launcher;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.Postgres;

/**
 * One real {@code leasesync serve} process (docs/reference-server.md) for the scale-out benchmark:
 * on a PostgreSQL database ({@code --db}, shared by any number of instances) or on an H2 file
 * ({@code --data-dir}, one instance). Reads its URL and the demo users' tokens from its first lines.
 * Not thread-safe.
 */
final class ServerProcess implements AutoCloseable {

    private final Process process;
    private final String baseUrl;
    private final Map<String, String> tokens;
    private final Path log;

    private ServerProcess(Process process, String baseUrl, Map<String, String> tokens, Path log) {
        this.process = process;
        this.baseUrl = baseUrl;
        this.tokens = tokens;
        this.log = log;
    }

    /**
     * Starts {@code serve --port 0 --seed demo} and waits until it prints its URL and tokens.
     *
     * @param jdbcUrl a PostgreSQL URL without credentials ({@code --db}), or null for H2 in {@code dataDir}
     * @param jvmOptions the server JVM's options
     * @throws IllegalStateException with the log's place if it exits or does not start within 90 s
     */
    static ServerProcess start(String jdbcUrl, Path dataDir, List<String> jvmOptions, Path log) throws IOException {
        return start(jdbcUrl, dataDir, jvmOptions, log, List.of(), List.of(), Map.of());
    }

    /**
     * Like {@link #start(String, Path, List, Path)}, with more {@code serve} options, a command the
     * JVM is started through (which must {@code exec} it, so that the process is the JVM itself and
     * {@link #kill()} reaches it; empty for none) and extra environment variables.
     */
    static ServerProcess start(
            String jdbcUrl,
            Path dataDir,
            List<String> jvmOptions,
            Path log,
            List<String> serveArgs,
            List<String> prefix,
            Map<String, String> env)
            throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Dlogback.configurationFile=logback-bench.xml");
        cmd.add("-cp");
        cmd.add(JavaProcess.classPath());
        cmd.add(Launcher.class.getName());
        cmd.addAll(List.of("serve", "--port", "0", "--seed", "demo"));
        if (jdbcUrl != null) {
            cmd.addAll(List.of("--db", jdbcUrl));
        } else {
            cmd.addAll(List.of("--data-dir", dataDir.toString()));
        }
        cmd.addAll(serveArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        pb.environment().put("LEASESYNC_DB_USER", Postgres.USER);
        pb.environment().put("LEASESYNC_DB_PASSWORD", Postgres.PASSWORD);
        pb.redirectError(log.toFile());
        Process p = pb.start();
        CompletableFuture<ServerProcess> started = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String url = null;
                Map<String, String> tokens = new HashMap<>();
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("listening on ")) {
                        url = line.substring("listening on ".length()).trim();
                    } else if (line.startsWith("token ")) {
                        String[] w = line.split(" ");
                        tokens.put(w[1], w[2]);
                        if (w[1].equals("admin")) {
                            return new ServerProcess(p, url, Map.copyOf(tokens), log);
                        }
                    }
                }
                throw new IllegalStateException("the server exited before it started; see " + log);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the server's output: " + e + "; see " + log, e);
            }
        });
        try {
            return started.get(90, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IllegalStateException("the server did not start: " + e.getMessage() + "; see " + log, e);
        }
    }

    String baseUrl() {
        return baseUrl;
    }

    /** A demo user's bearer token (alice, bob). */
    String token(String user) {
        return tokens.get(user);
    }

    /**
     * The server's instance id, from the {@code serve: instance ID on ...} line of its log.
     *
     * @throws IllegalStateException if the log has no such line
     */
    String instanceId() throws IOException {
        for (String line : java.nio.file.Files.readAllLines(log)) {
            if (line.startsWith("serve: instance ")) {
                return line.substring("serve: instance ".length()).split(" ")[0];
            }
        }
        throw new IllegalStateException("the server printed no instance id; see " + log);
    }

    /** {@code kill -9}: the process ends at once, no shutdown hook runs; waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the killed server " + process.pid() + " is still running; see " + log);
        }
    }

    /** CPU time (user + system) the server process has used so far. */
    Duration cpu() {
        return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** Stops the server (SIGTERM, as {@code serve} is meant to be stopped) and waits for it. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
