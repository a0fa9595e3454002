package org.leasesync.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The server endpoints of a cluster run: N {@code leasesync serve --db ... --audit} instances on one
 * PostgreSQL database, each started through its own command prefix (e.g. {@code bash net.sh run-in
 * s1 ls-s1}: its own network namespace and host name) and listening on its own address. They can
 * be killed with {@code kill -9} and started again one by one. Instances are numbered from 1.
 *
 * <p>Thread-safe: each instance is started or killed by one thread at a time (the harness never
 * acts twice on one instance at once); reads are safe from any thread.
 */
final class ServerInstances {

    /**
     * Where and how one instance runs.
     *
     * @param host the address it binds and clients use (an IP or host name)
     * @param port its TCP port
     * @param prefix the command that runs it somewhere (empty: a plain child process)
     */
    record Spec(String host, int port, List<String> prefix) {
        Spec {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("instance host must not be blank");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("instance port must be 1..65535, got " + port);
            }
            prefix = List.copyOf(prefix);
        }

        String url() {
            return "http://" + host + ":" + port;
        }
    }

    private final List<ServerProcess> processes = new ArrayList<>();
    private final List<Spec> specs;
    private final String[] instanceIds;
    private final Path logs;
    private volatile AdminClient[] admins;

    /**
     * @param specs one per instance, in order (instance 1 first)
     * @param javaCommand this program in a child JVM
     * @param dbUrl the shared database ({@code jdbc:postgresql://...})
     * @param dbEnv the database credentials ({@code LEASESYNC_DB_USER}, ...) added to each instance's environment
     * @param logs where each instance's standard error goes ({@code instance-K.log})
     * @param extraArgs more {@code serve} options of instance K (e.g. the jobs' settings, {@link ClusterJobs#serveArgs})
     */
    ServerInstances(
            List<Spec> specs,
            List<String> javaCommand,
            String dbUrl,
            Map<String, String> dbEnv,
            Path logs,
            java.util.function.IntFunction<List<String>> extraArgs) {
        this.specs = List.copyOf(specs);
        this.instanceIds = new String[specs.size()];
        this.logs = logs;
        for (int k = 1; k <= specs.size(); k++) {
            Spec s = specs.get(k - 1);
            List<String> cmd = new ArrayList<>(s.prefix());
            cmd.addAll(javaCommand);
            cmd.addAll(List.of(
                    "serve",
                    "--db",
                    dbUrl,
                    "--bind",
                    s.host(),
                    "--port",
                    String.valueOf(s.port()),
                    "--db-pool-size",
                    "5",
                    "--audit",
                    "--seed",
                    "demo"));
            cmd.addAll(extraArgs.apply(k));
            processes.add(new ServerProcess(cmd, dbEnv, s.url(), logs.resolve("instance-" + k + ".log")));
        }
    }

    int count() {
        return specs.size();
    }

    /** Every instance's URL, instance 1 first. */
    List<String> urls() {
        return specs.stream().map(Spec::url).toList();
    }

    /** Starts every instance at once (they share an empty database) and waits until all listen. */
    void startAll() throws IOException {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int k = 1; k <= count(); k++) {
            int instance = k;
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    start(instance);
                } catch (IOException e) {
                    throw new CompletionException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CompletionException(e);
                }
            }));
        }
        try {
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            throw new IOException(
                    "a server instance did not start: " + e.getCause().getMessage(), e.getCause());
        }
        ServerProcess first = processes.get(0);
        AdminClient[] a = new AdminClient[count()];
        for (int k = 0; k < count(); k++) {
            a[k] = new AdminClient(processes.get(k).url(), first.token("admin"));
        }
        admins = a;
    }

    /** Starts instance {@code k} (again) and waits until it listens; then learns its instance id. */
    void start(int k) throws IOException, InterruptedException {
        ServerProcess p = processes.get(k - 1);
        p.start();
        try {
            instanceIds[k - 1] = new AdminClient(p.url(), "").instanceId();
        } catch (IOException e) {
            instanceIds[k - 1] = null; // its database is not reachable right now: the claim probe skips it
        }
    }

    /** {@code kill -9} of instance {@code k}; waits until it is gone. */
    void kill9(int k) throws InterruptedException {
        processes.get(k - 1).kill9();
    }

    boolean alive(int k) {
        return processes.get(k - 1).alive();
    }

    /** The instance id instance {@code k} reported when it last started, if it could. */
    Optional<String> instanceId(int k) {
        return Optional.ofNullable(instanceIds[k - 1]);
    }

    /** The admin API of instance {@code k}. */
    AdminClient admin(int k) {
        return admins[k - 1];
    }

    /** A user's bearer token (the same on every instance). */
    String token(String user) {
        return processes.get(0).token(user);
    }

    /**
     * Clears instance {@code k}'s fault switches, asking again while it does not answer (an instance
     * whose request threads all wait on database connections that broke answers nothing until their
     * socket timeout; a host that came back may not be reachable at once). The first time it does
     * not answer, its threads are dumped next to its log ({@link #dumpThreads}). Blocks up to
     * {@code within} plus one call.
     *
     * @throws IOException when it still does not answer after {@code within}
     */
    void clearFaults(int k, Duration within, java.io.PrintStream progress) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        boolean dumped = false;
        while (true) {
            long began = System.nanoTime();
            try {
                admin(k).clearFaults();
                return;
            } catch (IOException e) {
                long tookMs = (System.nanoTime() - began) / 1_000_000;
                progress.println("cluster: instance " + k + " did not clear its faults (" + e + " after " + tookMs
                        + " ms)" + (dumped ? "" : "; its threads: " + dumpThreads(k)));
                dumped = true;
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "instance " + k + " did not answer its admin API for " + within.toSeconds()
                                    + " s after the faults were lifted",
                            e);
                }
                Thread.sleep(1000);
            }
        }
    }

    /**
     * Writes a thread dump of instance {@code k} ({@code jstack}) next to its log, for evidence.
     * Blocks up to 30 s.
     *
     * @return where it went, or why there is none
     */
    String dumpThreads(int k) throws InterruptedException {
        Path out = logs.resolve("instance-" + k + "-threads-" + System.nanoTime() + ".txt");
        Path jstack = Path.of(System.getProperty("java.home"), "bin", "jstack");
        if (!Files.isExecutable(jstack)) {
            return "no jstack in " + jstack.getParent();
        }
        try {
            Process p = new ProcessBuilder(
                            jstack.toString(),
                            String.valueOf(processes.get(k - 1).pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "jstack did not finish; partial dump in " + out;
            }
            return out.toString();
        } catch (IOException e) {
            return "jstack failed: " + e.getMessage();
        }
    }

    /** SIGTERM to every instance, waiting for each to stop. */
    void stopAll() throws InterruptedException {
        for (ServerProcess p : processes) {
            p.stop();
        }
    }
}
