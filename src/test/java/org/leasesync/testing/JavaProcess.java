package org.leasesync.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts a real child JVM on the test class path (for multi-process and crash tests).
 *
 * <p>Every child is started with {@link #jvm()}: flags for a short-lived JVM that cut its start-up
 * CPU, which on a machine of two cores is most of what the process tests cost. C1 only
 * ({@code TieredStopAtLevel=1}) with one compiler thread, and the serial collector (no parallel GC
 * threads to start, no concurrent marking): a child runs for seconds, not for the minutes C2 and G1
 * pay off in. None of the children's tests is about the JVM's flags, its collector or its compiler,
 * so the product code they run behaves the same (a heap that runs out runs out under either
 * collector); a test that measures a child's memory ({@code FullCheckMemoryTest}) sets its own. No
 * perf-data file ({@code -XX:-UsePerfData}, as the app's launcher): nothing reads the children's
 * {@code hsperfdata} (a thread dump attaches without it), and creating and sampling it cost a child a
 * tenth of its CPU here. The classes of the jars come mapped from a class-data archive made once per
 * build ({@link ChildArchive}).
 */
public final class JavaProcess {

    /** The flags every child JVM gets, after {@code java}; see the class comment for why. */
    private static final List<String> CHILD_FLAGS = List.of(
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1",
            "-XX:+UseSerialGC",
            "-XX:-UsePerfData",
            "-Xshare:auto");

    private JavaProcess() {}

    /**
     * The class path of this test JVM (Surefire's real one when available), its jars first so that the
     * children's class-data archive ({@link ChildArchive}) fits it.
     */
    public static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return ChildArchive.jarsFirst(cp == null || cp.isBlank() ? System.getProperty("java.class.path") : cp);
    }

    /** The {@code java} binary of this JVM. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The start of a child's command line: {@code java} and the start-up flags of a short-lived
     * child (a new list the caller may add to; the class path and main class come next).
     */
    public static List<String> jvm() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(CHILD_FLAGS);
        ChildArchive.path(classPath()).ifPresent(jsa -> {
            cmd.add("-XX:SharedArchiveFile=" + jsa);
            // a child whose class path the archive does not fit runs without it, and says nothing
            cmd.add("-Xlog:cds*=off");
        });
        return cmd;
    }

    /**
     * {@link #jvm()} without the {@code java} binary: the start-up flags of a short-lived child, for a
     * command line built elsewhere (the benchmarks' children in their smoke run). A new list.
     */
    public static List<String> childFlags() {
        List<String> cmd = jvm();
        return new ArrayList<>(cmd.subList(1, cmd.size()));
    }

    /**
     * The command of a leasesync child up to its arguments: {@link #jvm()}, {@code flags} (which win over
     * the start-up flags, e.g. a smaller heap), the class path and the app's main class.
     */
    public static List<String> launcher(String... flags) {
        List<String> cmd = jvm();
        cmd.addAll(List.of(flags));
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add("org.leasesync.Launcher");
        return cmd;
    }

    public static Process start(Class<?> main, Path log, String... args) throws IOException {
        return start(main, log, Map.of(), args);
    }

    /** Like {@link #start(Class, Path, String...)}, with {@code env} added to the child's environment. */
    public static Process start(Class<?> main, Path log, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = jvm();
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
