package org.leasesync.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code leasesync serve} process on a port of its own that stays the same across restarts,
 * so a client that signed in with its URL finds it again — as an operator stops a server on an H2
 * data dir, runs {@code leasesync users}, and starts it again. Each start's standard output and
 * error go to {@code dir/NAME-N.out} and {@code .err} (N counts the starts). Not thread-safe.
 */
final class ServeOnPort implements AutoCloseable {

    private final Path dir;
    private final String name;
    private final Map<String, String> env;
    private final List<String> args;
    private final int port;
    private CliProcess running;
    private String url;
    private int starts;

    private ServeOnPort(Path dir, String name, Map<String, String> env, List<String> args, int port) {
        this.dir = dir;
        this.name = name;
        this.env = env;
        this.args = args;
        this.port = port;
    }

    /** Starts {@code serve --port P ARGS...} on a free port P and waits until it listens. */
    static ServeOnPort start(Path dir, String name, Map<String, String> env, String... args) throws Exception {
        ServeOnPort s = new ServeOnPort(dir, name, env, List.of(args), freePort());
        s.restart();
        return s;
    }

    /** The URL it listens on, {@code http://127.0.0.1:P/} ({@code https://} with TLS). */
    String url() {
        return url;
    }

    /** Stops it with SIGTERM (a clean stop) and waits for the process to end. */
    void stop() throws InterruptedException {
        if (running != null) {
            running.process.destroy();
            if (!running.process.waitFor(30, TimeUnit.SECONDS)) {
                running.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            running = null;
        }
    }

    /** Starts it (again) on the same port, the same data and options; waits until it listens. */
    void restart() throws Exception {
        stop();
        starts++;
        List<String> all = new ArrayList<>(List.of("serve", "--port", String.valueOf(port)));
        all.addAll(args);
        String run = name + "-" + starts;
        running = CliProcess.start(dir, run, env, all);
        Path out = dir.resolve(run + ".out");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            String text = Files.exists(out) ? Files.readString(out) : "";
            int at = text.indexOf("listening on ");
            if (at >= 0 && text.indexOf('\n', at) > 0) {
                url = text.substring(at + "listening on ".length(), text.indexOf('\n', at))
                                .strip() + "/";
                return;
            }
            if (!running.process.isAlive()) {
                throw new AssertionError("serve exited with " + running.process.exitValue() + ": "
                        + Files.readString(dir.resolve(run + ".err")));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("serve did not listen within 90 s: " + Files.readString(dir.resolve(run + ".err")));
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
