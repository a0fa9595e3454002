package org.leasesync.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.leasesync.testing.JavaProcess;

/**
 * The parent's handle on one {@link LeaseBenchChild}: a JVM of its own for one contender, started
 * with the same JVM options for every contender. Not thread-safe; every method blocks until the
 * child answers.
 */
final class ContenderProcess implements AutoCloseable {

    private final String name;
    private final String contender;
    private final Process process;
    private final PrintStream to;
    private final BufferedReader from;
    private final Path log;

    private ContenderProcess(String name, String contender, Process process, Path log) {
        this.name = name;
        this.contender = contender;
        this.process = process;
        this.log = log;
        this.to = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.from = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Starts a child JVM for {@code contender} with {@code jvmOptions} (e.g. {@code -Xms512m
     * -Xmx512m}) on this JVM's class path; its standard error goes to {@code log}.
     *
     * @param name how the figures name it: the contender, or e.g. {@code leasesync_before}
     * @param classesFirst a directory of classes put before the class path (an earlier build of
     *     the product, to measure before and after in one run), or null
     */
    static ContenderProcess start(String name, String contender, List<String> jvmOptions, Path classesFirst, Path log)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Dlogback.configurationFile=logback-bench.xml");
        cmd.add("-cp");
        cmd.add((classesFirst == null ? "" : classesFirst.toAbsolutePath() + JavaProcess.separator())
                + JavaProcess.classPath());
        cmd.add(LeaseBenchChild.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(log.toFile());
        return new ContenderProcess(name, contender, pb.start(), log);
    }

    /** The name in figures. */
    String name() {
        return name;
    }

    /** The implementation: {@code leasesync}, {@code shedlock} or {@code raw}. */
    String contender() {
        return contender;
    }

    /** A fresh pool on {@code url} and a new contender on it; the first grant of every key. */
    void open(BenchDatabases.Backend backend, String url, int keys) throws IOException {
        ask("open " + contender + " " + backend.name() + " " + url + " " + keys);
    }

    /** Runs one scenario for {@code length} in the child. */
    LeaseBench.Result run(LeaseBench.Scenario s, int keys, Duration length) throws IOException {
        String[] w = ask("run " + s.name() + " " + s.threads() + " " + s.oneKey() + " " + s.instancePerThread() + " "
                        + keys + " " + length.toMillis())
                .split(" ");
        return new LeaseBench.Result(
                Double.parseDouble(w[1]),
                Long.parseLong(w[2]),
                Integer.parseInt(w[3]),
                Long.parseLong(w[4]),
                Long.parseLong(w[5]),
                Long.parseLong(w[6]));
    }

    /** Closes the contender and its pool (the child stays up for the next backend). */
    void closeContender() throws IOException {
        ask("close");
    }

    private String ask(String command) throws IOException {
        to.println(command);
        for (String line = from.readLine(); line != null; line = from.readLine()) {
            if (line.equals("ok") || line.startsWith("result ")) {
                return line;
            }
            if (line.startsWith("error ")) {
                throw new IllegalStateException(
                        name + ": '" + command + "' failed: " + line.substring(6) + " (see " + log + ")");
            }
        }
        throw new IllegalStateException(name + " exited during '" + command + "' (see " + log + ")");
    }

    @Override
    public void close() throws InterruptedException {
        to.println("quit");
        to.close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
