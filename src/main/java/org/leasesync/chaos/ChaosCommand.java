package org.leasesync.chaos;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.leasesync.cli.DurationConverter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync chaos}: the randomized crash, clock and network harness with its checker
 * (docs/reliability.md). Exit codes: 0 no violation; 1 a violation (or the harness could not run);
 * 2 usage error.
 */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        description = {
            "Run the reference server and several client processes under random kills, pauses, clock jumps "
                    + "(also below the JVM: wall clocks hours off, btime steps) and server faults for N rounds, then check the "
                    + "history: no overlapping runs, no change applied twice, no edit lost, no key stuck, nothing across users, "
                    + "no lease taken from a live holder.",
            "Prints one summary line (rounds=N kills=K faults=F runs=R overlaps=0 duplicates=0 lost=0 stuck=0 cross_user=0 "
                    + "stolen=0); "
                    + "exit code 0 when every counter is zero, 1 otherwise (with the seed and the history that shows each fault)."
        })
public final class ChaosCommand implements Callable<Integer> {

    @Option(
            names = "--rounds",
            defaultValue = "100",
            paramLabel = "N",
            description = "Rounds of faults (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "Random seed; the same seed gives the same schedule of actions. "
                    + "Default: a random one (printed).")
    Long seed;

    @Option(
            names = "--agents",
            defaultValue = "3",
            paramLabel = "N",
            description =
                    "Client processes on the shared data directory, 2..8 (default ${DEFAULT-VALUE}; a second device adds one more).")
    int agents;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description = "Where data, journals and logs go (must not exist or be empty). "
                    + "Default: a new temporary directory, deleted after a clean run.")
    Path workDir;

    @Option(
            names = "--lease-ttl",
            defaultValue = "3s",
            converter = DurationConverter.class,
            paramLabel = "DURATION",
            description = "The clients' lease TTL (default ${DEFAULT-VALUE}); pauses last 1.3-2 TTLs.")
    Duration leaseTtl;

    @Option(
            names = "--call-timeout",
            defaultValue = "2s",
            converter = DurationConverter.class,
            paramLabel = "DURATION",
            description = "The clients' HTTP call timeout, below 90%% of the TTL (default ${DEFAULT-VALUE}).")
    Duration callTimeout;

    @Option(names = "--keep", description = "Keep the work directory after a clean run too.")
    boolean keep;

    @Option(
            names = "--os-time-faults",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Also move agents' time the way the operating system does (default on): wall clocks hours "
                    + "ahead or behind and btime shifted as after a clock step (LD_PRELOAD aids built with gcc into the "
                    + "work directory). --no-os-time-faults: only the injected clock jumps.")
    boolean osTimeFaults;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        long s = seed != null ? seed : new SecureRandom().nextLong() >>> 16;
        if (callTimeout.compareTo(leaseTtl.multipliedBy(9).dividedBy(10)) >= 0) {
            throw new ParameterException(spec.commandLine(), "--call-timeout must be below 90% of --lease-ttl");
        }
        boolean temp = workDir == null;
        ChaosHarness.Settings settings;
        try { // validate everything before anything is printed or created
            settings = new ChaosHarness.Settings(
                    rounds,
                    s,
                    agents,
                    temp ? Path.of("unused") : workDir,
                    leaseTtl,
                    callTimeout,
                    javaCommand(),
                    System.out,
                    null);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!temp && Files.isDirectory(workDir)) {
            try (var entries = Files.list(workDir)) {
                if (entries.findAny().isPresent()) {
                    throw new ParameterException(spec.commandLine(), "--work-dir " + workDir + " is not empty");
                }
            }
        }
        Path dir = temp ? Files.createTempDirectory("leasesync-chaos-") : Files.createDirectories(workDir);
        OsTime.Libraries libs = null;
        if (osTimeFaults) {
            try {
                libs = OsTime.buildAids(dir.resolve("native"));
            } catch (java.io.IOException | IllegalArgumentException e) {
                System.err.println("leasesync chaos: " + e.getMessage());
                return 1;
            }
        }
        settings = new ChaosHarness.Settings(
                rounds, s, agents, dir, leaseTtl, callTimeout, javaCommand(), System.out, libs);
        PrintStream out = System.out;
        out.println("chaos: seed=" + s + " rounds=" + rounds + " work-dir=" + dir);
        ChaosHarness harness = new ChaosHarness(settings);
        ChaosReport report = harness.run();
        out.println(report.summaryLine());
        out.println(report.takeoverLine());
        out.println(harness.osTimeLine());
        if (!report.passed()) {
            out.println("FAILED with seed " + s + ": " + report.violations().size() + " violation(s); reproduce with "
                    + "`leasesync chaos --seed " + s + " --rounds " + rounds + "`; journals and logs in " + dir);
            for (ChaosReport.Violation v : report.violations()) {
                out.println();
                out.println("[" + v.counter() + "] " + v.what());
                v.history().forEach(line -> out.println("    " + line));
            }
            return 1;
        }
        if (temp && !keep) {
            deleteTree(dir);
        }
        return 0;
    }

    /** This program in a child JVM: the same java, class path and main class. */
    static List<String> javaCommand() {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isBlank()) {
            cp = System.getProperty("java.class.path");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(
                "-Xmx160m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xshare:auto",
                "-cp",
                cp,
                "org.leasesync.Launcher"));
        return cmd;
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
