package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.leasesync.cli.DurationConverter;
import org.leasesync.testing.JavaProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The benchmark suite (docs/benchmarks.md). Run it with
 * {@code mvn -B -ntp -Pbench test-compile exec:exec}; options through
 * {@code -Dbench.args="--only lease --rounds 3"}. Prints one {@code name value unit} line per
 * figure (medians over interleaved rounds) and {@code ratio.NAME value x} lines.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "leasesync benchmarks")
public final class BenchMain implements Callable<Integer> {

    /** The benchmark items. */
    enum Item {
        LEASE,
        TRIGGER,
        SYNC,
        TAKEOVER,
        SCALE,
        JOBS,
        GROWTH,
        GROWTH_OPEN
    }

    @Option(names = "--only", split = ",", description = "items to run: ${COMPLETION-CANDIDATES} (default: all)")
    Set<Item> only = EnumSet.allOf(Item.class);

    @Option(
            names = "--rounds",
            description = "measured rounds per item (after one warm-up round); default ${DEFAULT-VALUE}")
    int rounds = 5;

    @Option(
            names = "--slice",
            converter = DurationConverter.class,
            description = "lease: time one contender runs one scenario per round; default ${DEFAULT-VALUE}")
    Duration slice = Duration.ofSeconds(1);

    @Option(
            names = "--warmup",
            converter = DurationConverter.class,
            description =
                    "lease: time each contender runs each scenario alone before the rounds (JIT); default ${DEFAULT-VALUE}")
    Duration warmup = Duration.ofSeconds(2);

    @Option(
            names = "--backends",
            split = ",",
            description =
                    "lease: where the contenders' databases live: ${COMPLETION-CANDIDATES} (default: mem, file, pg)")
    List<BenchDatabases.Backend> backends =
            List.of(BenchDatabases.Backend.MEM, BenchDatabases.Backend.FILE, BenchDatabases.Backend.PG);

    @Option(
            names = "--scenarios",
            split = ",",
            description = "lease: scenarios to run, e.g. 1t1k,8r1000k (default: all)")
    List<String> scenarios = List.of();

    @Option(
            names = "--contenders",
            split = ",",
            description = "lease: contenders to run (default: leasesync,shedlock,raw)")
    List<String> contenders = LeaseBench.CONTENDERS;

    @Option(
            names = "--contender-jvm",
            split = " ",
            description =
                    "lease: options of each contender's own JVM (one string, split at spaces); default ${DEFAULT-VALUE}")
    List<String> contenderJvm = List.of("-Xms512m", "-Xmx512m");

    @Option(
            names = "--baseline-classes",
            description =
                    "lease: classes of an earlier build (e.g. its target/classes): adds leasesync_before, run on them")
    Path baselineClasses;

    @Option(
            names = "--trigger-samples",
            description = "trigger: submits per idle figure and round; default ${DEFAULT-VALUE}")
    int triggerSamples = 300;

    @Option(
            names = "--storm",
            converter = DurationConverter.class,
            description = "trigger: length of one storm per round; default ${DEFAULT-VALUE}")
    Duration storm = Duration.ofSeconds(2);

    @Option(names = "--pull-records", description = "sync: records to pull; default ${DEFAULT-VALUE}")
    int pullRecords = 100_000;

    @Option(
            names = "--pull-page",
            description = "sync: records per pull request (1..1000); default: the product's, ${DEFAULT-VALUE}")
    int pullPage = org.leasesync.sync.SyncSettings.DEFAULT.pullPageSize();

    @Option(names = "--push-records", description = "sync: outbox entries to push; default ${DEFAULT-VALUE}")
    int pushRecords = 10_000;

    @Option(
            names = "--takeover-ttl",
            converter = DurationConverter.class,
            description = "takeover: lease TTL of the holder when its death is not provable; default ${DEFAULT-VALUE}")
    Duration takeoverTtl = Duration.ofSeconds(5);

    @Option(
            names = "--takeover-rounds",
            description = "takeover: kill-and-restart rounds per case; default ${DEFAULT-VALUE}")
    int takeoverRounds = 10;

    @Option(
            names = "--scale-phase",
            converter = DurationConverter.class,
            description = "scale: length of the measured pull phase and of the push phase; default ${DEFAULT-VALUE}")
    Duration scalePhase = Duration.ofSeconds(5);

    @Option(
            names = "--scale-records",
            description = "scale: records seeded per client stream; default ${DEFAULT-VALUE}")
    int scaleRecords = 3_000;

    @Option(
            names = "--scale-batch",
            description = "scale: records per push and per pull page; default ${DEFAULT-VALUE}")
    int scaleBatch = 500;

    @Option(
            names = "--scale-configs",
            split = ",",
            description = "scale: set-ups, of pg1, pg2, pg3, h2file1 (default: all)")
    List<String> scaleConfigs = List.of("pg1", "pg2", "pg3", "h2file1");

    @Option(
            names = "--server-jvm",
            split = " ",
            description =
                    "scale, jobs: options of each server JVM (one string, split at spaces); default ${DEFAULT-VALUE}")
    List<String> serverJvm = List.of("-Xms256m", "-Xmx256m");

    @Option(
            names = "--job-instances",
            description =
                    "jobs: servers that schedule the timed jobs and take over the victim's run; default ${DEFAULT-VALUE}")
    int jobInstances = 3;

    @Option(
            names = "--job-interval",
            converter = DurationConverter.class,
            description = "jobs: interval of the timed jobs (the scheduler ticks every quarter of it, 50 ms..1 s);"
                    + " default ${DEFAULT-VALUE}")
    Duration jobInterval = Duration.ofSeconds(4);

    @Option(
            names = "--job-occurrences",
            description =
                    "jobs: occurrences of each timed job per round before the kills begin; default ${DEFAULT-VALUE}")
    int jobOccurrences = 10;

    @Option(
            names = "--job-kills",
            description = "jobs: kills per mode (provable, unprovable) and round; default ${DEFAULT-VALUE}")
    int jobKills = 4;

    @Option(
            names = "--job-ttl",
            converter = DurationConverter.class,
            description = "jobs: every server's job lease TTL (serve --job-lease-ttl); default ${DEFAULT-VALUE}")
    Duration jobTtl = Duration.ofSeconds(15);

    @Option(
            names = "--work-dir",
            description =
                    "where database files go, kept after the run (default: a new temporary directory, deleted at the end)")
    Path workDir;

    @Option(
            names = "--growth-records",
            description = "growth: local records of the big data directory; default ${DEFAULT-VALUE}")
    int growthRecords = 1_000_000;

    @Option(
            names = "--growth-runs",
            description = "growth: runs of history of the big data directory; default ${DEFAULT-VALUE}")
    int growthRuns = 100_000;

    @Option(
            names = "--growth-open-pairs",
            description = "growth_open: measured pairs of fresh-JVM opens (big, empty); default ${DEFAULT-VALUE}")
    int growthOpenPairs = 5;

    @Option(
            names = "--growth-child-jvm",
            split = " ",
            description = "growth_open: extra options of each child JVM (one string, split at spaces; {label} becomes"
                    + " the directory and pair, e.g. -XX:StartFlightRecording=filename=open-{label}.jfr); default none")
    List<String> growthChildJvm = List.of();

    /** growth, growth_open: options before the app's heap options in each child JVM; none but with --quick. */
    List<String> growthStartJvm = List.of();

    @Option(names = "--quick", description = "tiny sizes, for the smoke test: proves it works, measures nothing")
    boolean quick;

    public static void main(String[] args) {
        int code = new CommandLine(new BenchMain())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args);
        System.exit(code);
    }

    @Override
    public Integer call() throws Exception {
        quick();
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("leasesync-bench");
        Figures f = new Figures(System.out);
        f.note("leasesync benchmarks: rounds=" + rounds + " cores="
                + Runtime.getRuntime().availableProcessors() + " java=" + System.getProperty("java.version")
                + " work-dir=" + dir);
        try {
            run(f, dir);
        } finally {
            if (workDir == null) {
                deleteTree(dir); // the H2 file databases of one lease run alone reach several GB
            }
        }
        return 0;
    }

    /** Deletes a temporary work directory the benchmark created; a file that cannot be deleted is left. */
    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }

    /** With {@code --quick}, replaces every size by a tiny one. */
    void quick() {
        if (quick) {
            rounds = 1;
            slice = Duration.ofMillis(100);
            warmup = Duration.ofMillis(50);
            backends =
                    List.of(BenchDatabases.Backend.MEM, BenchDatabases.Backend.FILE, BenchDatabases.Backend.PG_NOFSYNC);
            // the children of a run that measures nothing start as the tests' other children do: C1 only,
            // the serial collector, the class-data archive (JavaProcess), which halves a child's start-up CPU
            contenderJvm = quickJvm("-Xmx128m");
            scalePhase = Duration.ofMillis(500);
            scaleRecords = 200;
            scaleBatch = 100;
            scaleConfigs = List.of("pg2", "h2file1");
            serverJvm = quickJvm("-Xmx128m");
            growthStartJvm = quickJvm();
            triggerSamples = 20;
            storm = Duration.ofMillis(300);
            pullRecords = 1_000;
            growthRecords = 2_000;
            growthRuns = 300;
            growthOpenPairs = 1;
            pushRecords = 200;
            takeoverTtl = Duration.ofMillis(500);
            jobInstances = 2;
            jobInterval = Duration.ofMillis(400);
            jobOccurrences = 3;
            jobKills = 1;
            jobTtl = Duration.ofSeconds(1);
        }
    }

    /** The start-up flags of the tests' short-lived children ({@link JavaProcess#childFlags()}), then {@code more}. */
    private static List<String> quickJvm(String... more) {
        List<String> jvm = JavaProcess.childFlags();
        jvm.addAll(List.of(more));
        return List.copyOf(jvm);
    }

    /** Runs the selected items into {@code f}. */
    void run(Figures f, Path dir) throws Exception {
        try (BenchDatabases dbs = new BenchDatabases(dir)) {
            run(f, dir, dbs);
        }
    }

    private void run(Figures f, Path dir, BenchDatabases dbs) throws Exception {
        if (only.contains(Item.LEASE)) {
            LeaseBench.run(
                    f,
                    new LeaseBench.Settings(
                            slice,
                            warmup,
                            rounds,
                            8,
                            quick ? 50 : LeaseBench.MAX_KEYS,
                            backends,
                            scenarios,
                            contenders,
                            contenderJvm,
                            baselineClasses),
                    dbs,
                    dir);
        }
        if (only.contains(Item.TRIGGER)) {
            TriggerBench.run(f, new TriggerBench.Settings(triggerSamples, storm, rounds, 8), dir);
        }
        if (only.contains(Item.SYNC)) {
            SyncBench.run(f, new SyncBench.Settings(pullRecords, pushRecords, Math.min(rounds, 3), pullPage), dir);
        }
        if (only.contains(Item.SCALE)) {
            List<ScaleBench.Config> configs = ScaleBench.defaultConfigs().stream()
                    .filter(c -> scaleConfigs.contains(c.name()))
                    .toList();
            ScaleBench.run(
                    f,
                    new ScaleBench.Settings(
                            configs,
                            quick ? 1 : Math.min(rounds, 3),
                            scalePhase,
                            quick ? Duration.ofMillis(300) : Duration.ofSeconds(3),
                            scaleRecords,
                            scaleBatch,
                            serverJvm,
                            quick ? BenchDatabases.Backend.PG_NOFSYNC : BenchDatabases.Backend.PG),
                    dbs,
                    dir);
        }
        if (only.contains(Item.JOBS)) {
            JobBench.run(
                    f,
                    new JobBench.Settings(
                            quick ? 1 : Math.min(rounds, 3),
                            jobInstances,
                            jobInterval,
                            jobOccurrences,
                            jobKills,
                            jobTtl,
                            serverJvm,
                            quick ? BenchDatabases.Backend.PG_NOFSYNC : BenchDatabases.Backend.PG,
                            11),
                    dbs,
                    dir);
        }
        if (only.contains(Item.GROWTH)) {
            GrowthBench.run(
                    f, new GrowthBench.Settings(growthRecords, growthRuns, Math.min(rounds, 3), growthStartJvm), dir);
        }
        if (only.contains(Item.GROWTH_OPEN)) {
            GrowthBench.runOpen(
                    f,
                    new GrowthBench.OpenSettings(
                            growthRecords, growthRuns, growthOpenPairs, growthStartJvm, growthChildJvm),
                    dir);
        }
        if (only.contains(Item.TAKEOVER)) {
            TakeoverBench.run(f, new TakeoverBench.Settings(takeoverTtl, quick ? 1 : takeoverRounds), dir);
        }
    }
}
