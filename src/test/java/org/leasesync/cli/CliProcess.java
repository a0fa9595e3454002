package org.leasesync.cli;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.leasesync.Launcher;
import org.leasesync.testing.JavaProcess;

/**
 * A real {@code leasesync} process (the {@link Launcher} main class) with the production logging
 * configuration, so its stderr is what a user sees. Output goes to files in {@code dir}.
 */
final class CliProcess {

    record Result(int code, String out, String err, long millis) {
        /** Both streams, for assertion messages. */
        String both() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    final Process process;
    private final Path out;
    private final Path err;
    private final long startNanos = System.nanoTime();

    private CliProcess(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    static CliProcess start(Path dir, String name, Map<String, String> env, List<String> args) throws IOException {
        return start(dir, name, env, args, List.of());
    }

    /**
     * Like {@link #start(Path, String, Map, List)}, under the file-creation mask {@code umask}
     * (octal, e.g. {@code "022"}), set by a shell that then becomes the JVM; the shell first
     * creates {@code control} with that mask, so a test can see that the mask was in force.
     */
    static CliProcess startUnderUmask(Path dir, String name, String umask, Path control, List<String> args)
            throws IOException {
        if (!umask.matches("0?[0-7]{3}")) {
            throw new IllegalArgumentException("an octal umask like 022, got " + umask);
        }
        return start(
                dir,
                name,
                Map.of("CONTROL_FILE", control.toString()),
                args,
                List.of("/bin/sh", "-c", "umask " + umask + " && : > \"$CONTROL_FILE\" && exec \"$0\" \"$@\""));
    }

    /** As {@link #start(Path, String, Map, List)}, under {@code umask} (e.g. {@code 000}) when not null. */
    static CliProcess start(Path dir, String name, Map<String, String> env, List<String> args, String umask)
            throws IOException {
        return start(
                dir,
                name,
                env,
                args,
                umask == null ? List.<String>of() : List.of("sh", "-c", "umask " + umask + " && exec \"$0\" \"$@\""));
    }

    private static CliProcess start(
            Path dir, String name, Map<String, String> env, List<String> args, List<String> prefix) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(JavaProcess.jvm());
        cmd.add("-Dlogback.configurationFile=" + productionLogging());
        cmd.add("-cp");
        cmd.add(JavaProcess.classPath());
        cmd.add(Launcher.class.getName());
        cmd.addAll(args);
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("LEASESYNC_"));
        pb.environment().putAll(env);
        return new CliProcess(pb.start(), out, err);
    }

    static CliProcess start(Path dir, String name, List<String> args) throws IOException {
        return start(dir, name, Map.of(), args);
    }

    /**
     * Runs {@code leasesync ARGS} to its end (at most {@code timeoutSeconds}) with {@code stdin} (null:
     * none) on its standard input; its output goes to {@code dir/name.out} and {@code .err}.
     */
    static Result run(
            Path dir, String name, Map<String, String> env, String stdin, List<String> args, long timeoutSeconds)
            throws IOException, InterruptedException {
        CliProcess p = start(dir, name, env, args);
        try (java.io.OutputStream in = p.process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return p.await(timeoutSeconds);
    }

    /** Waits for the process (killing it after {@code timeoutSeconds}) and reads its output. */
    Result await(long timeoutSeconds) throws IOException, InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("still running after " + timeoutSeconds + " s: " + Files.readString(err));
        }
        return new Result(
                process.exitValue(),
                Files.readString(out),
                Files.readString(err),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    private static String productionLogging() {
        try {
            return Path.of(Launcher.class.getResource("/logback.xml").toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
