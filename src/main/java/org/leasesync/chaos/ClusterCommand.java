package org.leasesync.chaos;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.leasesync.cli.DurationConverter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code leasesync cluster} (hidden): the workload and checks of {@code scale/cluster.sh}, which
 * builds the network namespaces and PostgreSQL and then runs this inside them (docs/scale-out.md).
 * Exit codes: 0 no violation; 1 a violation (or the run could not be done); 2 usage error.
 */
@Command(
        name = "cluster",
        hidden = true,
        mixinStandardHelpOptions = true,
        description = {
            "Run server instances on one PostgreSQL and client devices under seeded kills, partitions and "
                    + "server faults, then check the audit and every device (run by scale/cluster.sh, not directly).",
            "Prints one summary line (instances=N rounds=N kills=K partitions=P duplicates=0 lost=0 overlaps=0 "
                    + "fencing_violations=0 job_double_runs=0); exit code 0 when every counter is zero."
        })
public final class ClusterCommand implements Callable<Integer> {

    @Option(
            names = "--rounds",
            defaultValue = "100",
            paramLabel = "N",
            description = "Rounds (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--seed", paramLabel = "S", description = "Random seed (default: a random one, printed).")
    Long seed;

    @Option(
            names = "--instances",
            required = true,
            split = ",",
            paramLabel = "HOST:PORT",
            description = "Each server instance's address, instance 1 first (2..9).")
    List<String> instances;

    @Option(
            names = "--db",
            required = true,
            paramLabel = "JDBC_URL",
            description = "The instances' shared PostgreSQL database; user and password from $LEASESYNC_DB_USER "
                    + "and $LEASESYNC_DB_PASSWORD.")
    String db;

    @Option(
            names = "--net-script",
            required = true,
            paramLabel = "FILE",
            description = "scale/net.sh: starts processes in their namespaces (run-instance K, run-clients) and makes "
                    + "the network faults.")
    Path netScript;

    @Option(
            names = "--work-dir",
            required = true,
            paramLabel = "DIR",
            description = "Where data, journals, logs and the audit go (must not exist or be empty); kept.")
    Path workDir;

    @Option(
            names = "--lease-ttl",
            defaultValue = "3s",
            converter = DurationConverter.class,
            paramLabel = "DURATION",
            description = "The clients' lease TTL (default ${DEFAULT-VALUE}).")
    Duration leaseTtl;

    @Option(
            names = "--call-timeout",
            defaultValue = "2s",
            converter = DurationConverter.class,
            paramLabel = "DURATION",
            description = "The clients' HTTP call timeout, below 90%% of the TTL (default ${DEFAULT-VALUE}).")
    Duration callTimeout;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        long s = seed != null ? seed : new SecureRandom().nextLong() >>> 16;
        if (callTimeout.compareTo(leaseTtl.multipliedBy(9).dividedBy(10)) >= 0) {
            throw new ParameterException(spec.commandLine(), "--call-timeout must be below 90% of --lease-ttl");
        }
        if (!Files.isRegularFile(netScript)) {
            throw new ParameterException(spec.commandLine(), "--net-script " + netScript + " is not a file");
        }
        if (Files.isDirectory(workDir)) {
            try (var entries = Files.list(workDir)) {
                if (entries.findAny().isPresent()) {
                    throw new ParameterException(spec.commandLine(), "--work-dir " + workDir + " is not empty");
                }
            }
        }
        ClusterHarness.Settings settings;
        try {
            settings = new ClusterHarness.Settings(
                    rounds,
                    s,
                    specs(),
                    List.of("bash", netScript.toString(), "run-clients"),
                    db,
                    dbEnv(),
                    new ScriptNetworkFaults(netScript),
                    Files.createDirectories(workDir),
                    leaseTtl,
                    callTimeout,
                    ChaosCommand.javaCommand(),
                    System.out);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintStream out = System.out;
        out.println(
                "cluster: seed=" + s + " rounds=" + rounds + " instances=" + instances.size() + " work-dir=" + workDir);
        ClusterReport report = new ClusterHarness(settings).run();
        out.println("cluster: job check: " + report.jobNote());
        out.println(report.summaryLine());
        if (report.passed()) {
            return 0;
        }
        if (!report.unsettled().isEmpty()) {
            out.println("the drain did not settle " + report.unsettled().size() + " key(s) within 60 s each:");
            report.unsettled().forEach(u -> out.println("    " + u));
        }
        if (!report.jobHistoryGaps().isEmpty()) {
            out.println("the job check could not see every server job run:");
            report.jobHistoryGaps().forEach(g -> out.println("    " + g));
        }
        out.println("FAILED with seed " + s + ": " + report.violations().size() + " violation(s)"
                + (report.unsettled().isEmpty() ? "" : ", " + report.unsettled().size() + " key(s) unsettled")
                + (report.jobHistoryGaps().isEmpty() ? "" : ", job history incomplete") + "; reproduce with "
                + "`bash scale/cluster.sh --rounds " + rounds + " --seed " + s + "`; journals, logs and audit.jsonl in "
                + workDir);
        for (ChaosReport.Violation v : report.violations()) {
            out.println();
            out.println("[" + v.counter() + "] " + v.what());
            v.history().forEach(line -> out.println("    " + line));
        }
        return 1;
    }

    private List<ServerInstances.Spec> specs() {
        List<ServerInstances.Spec> out = new ArrayList<>();
        for (int k = 1; k <= instances.size(); k++) {
            String hostPort = instances.get(k - 1).trim();
            int colon = hostPort.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--instances entry '" + hostPort + "' is not HOST:PORT");
            }
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--instances entry '" + hostPort + "' has no numeric port");
            }
            out.add(new ServerInstances.Spec(
                    hostPort.substring(0, colon),
                    port,
                    List.of("bash", netScript.toString(), "run-instance", String.valueOf(k))));
        }
        return out;
    }

    private static Map<String, String> dbEnv() {
        Map<String, String> env = new HashMap<>();
        for (String name : List.of("LEASESYNC_DB_USER", "LEASESYNC_DB_PASSWORD")) {
            String v = System.getenv(name);
            if (v != null) {
                env.put(name, v);
            }
        }
        return env;
    }
}
