package org.leasesync.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts a real child JVM on the test class path (for multi-process and crash tests). */
public final class JavaProcess {

    private JavaProcess() {
    }

    /** The class path of this test JVM (Surefire's real one when available). */
    public static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp == null || cp.isBlank() ? System.getProperty("java.class.path") : cp;
    }

    public static Process start(Class<?> main, Path log, String... args) throws IOException {
        return start(main, log, Map.of(), args);
    }

    /** Like {@link #start(Class, Path, String...)}, with {@code env} added to the child's environment. */
    public static Process start(Class<?> main, Path log, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        return pb.start();
    }

    public static String separator() {
        return File.pathSeparator;
    }
}
