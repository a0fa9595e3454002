package org.leasesync.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.leasesync.store.SqlDialect;

/**
 * The fair lease harness: leasesync's registry against ShedLock's JDBC
 * provider and raw conditional SQL. Every contender runs in a JVM of its own
 * ({@link LeaseBenchChild}, same JVM options for all) and gets a fresh database of its own on the
 * same backend and URL form, behind a HikariCP pool of its own with identical settings
 * ({@link BenchDatabases#pool}); each is warmed up alone (JIT) before the measured rounds; within a
 * round every scenario runs the contenders one after another, in an order that rotates from round
 * to round (A B C, B C A, C A B, ...), so machine noise hits all alike. Each figure is the median
 * over rounds of successful acquire+release pairs per second; ratios are taken within the run.
 */
final class LeaseBench {

    static final int MAX_KEYS = 1_000;
    /** The name of the baseline contender: leasesync built from an earlier commit ({@code --baseline-classes}). */
    static final String BEFORE = "leasesync_before";

    static final List<String> CONTENDERS =
            List.of(LeaseContenders.LEASESYNC, LeaseContenders.SHEDLOCK, LeaseContenders.RAW);

    /**
     * One scenario.
     *
     * @param name short name used in figure names
     * @param threads threads taking and releasing leases
     * @param oneKey true: every thread wants key 0 (contention; holders are counted); false: a
     *     random key of all keys each time
     * @param instancePerThread true: every thread has an instance of its own (a registry with its
     *     own owner id, a ShedLock provider of its own), like separate processes; false: all threads
     *     share one instance, like threads of one process
     */
    record Scenario(String name, int threads, boolean oneKey, boolean instancePerThread) {}

    /** 1 thread on 1 key; 8 threads of one instance over all keys; one instance per thread over all keys and on one key. */
    static List<Scenario> scenarios(int threads) {
        return List.of(
                new Scenario("1t1k", 1, true, false),
                new Scenario(threads + "t1000k", threads, false, false),
                new Scenario(threads + "r1000k", threads, false, true),
                new Scenario(threads + "r1k", threads, true, true));
    }

    /**
     * @param slice how long one contender runs one scenario in one round
     * @param warmup how long each contender runs each scenario alone before the measured rounds
     * @param rounds measured rounds
     * @param threads threads of the multi-threaded scenarios
     * @param keys keys of the "over many keys" scenarios (at most {@link #MAX_KEYS})
     * @param backends where the contenders' databases live
     * @param scenarioNames scenarios to run (empty: all)
     * @param contenders contenders to run (a subset of {@link #CONTENDERS}, e.g. one for profiling)
     * @param childJvm options of every contender's JVM
     * @param baselineClasses classes of an earlier build of the product: adds the contender
     *     {@value #BEFORE}, leasesync on those classes; null for none
     */
    record Settings(
            Duration slice,
            Duration warmup,
            int rounds,
            int threads,
            int keys,
            List<BenchDatabases.Backend> backends,
            List<String> scenarioNames,
            List<String> contenders,
            List<String> childJvm,
            Path baselineClasses) {
        Settings {
            if (keys < 1 || keys > MAX_KEYS || rounds < 1 || threads < 1) {
                throw new IllegalArgumentException(
                        "bad lease bench settings: " + keys + " keys, " + rounds + " rounds, " + threads + " threads");
            }
            if (!CONTENDERS.containsAll(contenders) || contenders.isEmpty()) {
                throw new IllegalArgumentException("contenders must be some of " + CONTENDERS + ", got " + contenders);
            }
        }

        List<Scenario> selected() {
            List<Scenario> all = scenarios(threads);
            return scenarioNames.isEmpty()
                    ? all
                    : all.stream().filter(s -> scenarioNames.contains(s.name())).toList();
        }
    }

    /**
     * What one run of one scenario saw.
     *
     * @param jvmCpuNanos CPU time the contender's JVM used meanwhile (all its threads: workers, the
     *     H2 engine when H2 runs in it, JIT, GC)
     * @param dbCpuNanos CPU time of the PostgreSQL server processes serving the contender's pool
     *     meanwhile (0 on H2, which runs inside the JVM)
     */
    record Result(
            double opsPerSecond, long acquisitions, int maxHolders, long failures, long jvmCpuNanos, long dbCpuNanos) {
        /** CPU microseconds per acquire+release, the contender's JVM and its database server together. */
        double cpuMicrosPerOp() {
            return acquisitions == 0 ? Double.NaN : (jvmCpuNanos + dbCpuNanos) / 1e3 / acquisitions;
        }
    }

    private LeaseBench() {}

    static void run(Figures f, Settings s, BenchDatabases dbs, Path workDir) throws Exception {
        List<Scenario> scenarios = s.selected();
        List<ContenderProcess> all = new ArrayList<>();
        try {
            for (String name : s.contenders()) {
                all.add(ContenderProcess.start(
                        name, name, s.childJvm(), null, workDir.resolve("lease-" + name + ".log")));
            }
            if (s.baselineClasses() != null) {
                all.add(ContenderProcess.start(
                        BEFORE,
                        LeaseContenders.LEASESYNC,
                        s.childJvm(),
                        s.baselineClasses(),
                        workDir.resolve("lease-" + BEFORE + ".log")));
                f.note("lease: " + BEFORE + " is leasesync with the classes of " + s.baselineClasses() + " first");
            }
            f.note("lease: each contender in a JVM of its own: " + String.join(" ", s.childJvm()));
            for (BenchDatabases.Backend backend : s.backends()) {
                run(f, s, scenarios, backend, all, dbs);
            }
        } finally {
            for (ContenderProcess c : all) {
                c.close();
            }
        }
    }

    private static void run(
            Figures f,
            Settings s,
            List<Scenario> scenarios,
            BenchDatabases.Backend backend,
            List<ContenderProcess> all,
            BenchDatabases dbs)
            throws Exception {
        String b = backend.label;
        for (ContenderProcess c : all) {
            String url = dbs.newDatabase(backend, c.name());
            if (c == all.get(0)) {
                f.note("lease " + b + ": " + url);
                if (backend.dialect() == SqlDialect.POSTGRESQL) {
                    f.note("lease " + b + ": " + BenchDatabases.postgresSettings(url));
                }
            }
            c.open(backend, url, s.keys());
        }
        f.sample("lease." + b + ".load_at_start", BenchDatabases.loadAverage(), "load");
        for (ContenderProcess c : all) {
            for (Scenario scenario : scenarios) { // JIT warm-up, each contender alone
                check(c.name(), b, scenario, c.run(scenario, s.keys(), s.warmup()));
            }
        }
        for (int round = 0; round < s.rounds(); round++) {
            for (Scenario scenario : scenarios) {
                for (int i = 0; i < all.size(); i++) {
                    ContenderProcess c = all.get((i + round) % all.size()); // rotate the order
                    Result r = check(c.name(), b, scenario, c.run(scenario, s.keys(), s.slice()));
                    String base = "lease." + b + "." + scenario.name() + "." + c.name();
                    f.sample(base, r.opsPerSecond(), "ops/s");
                    f.sample(base + ".cpu_us_per_op", r.cpuMicrosPerOp(), "us");
                    if (scenario.oneKey() && scenario.threads() > 1) {
                        f.sample(base + ".max_holders", r.maxHolders(), "holders");
                    }
                }
                roundRatios(f, b, scenario, names(all));
            }
        }
        f.sample("lease." + b + ".load_at_end", BenchDatabases.loadAverage(), "load");
        for (ContenderProcess c : all) {
            c.closeContender();
        }
        print(f, b, scenarios, names(all));
    }

    private static List<String> names(List<ContenderProcess> all) {
        return all.stream().map(ContenderProcess::name).toList();
    }

    /** The first grant of every key: inserts the rows (leasesync, ShedLock), so rounds measure updates only. */
    static void firstGrants(LeaseContenders.Contender c, int keys) throws Exception {
        LeaseContenders.Instance one = c.newInstance();
        for (int k = 0; k < keys; k++) {
            Object h = one.tryLock(k);
            if (h == null) {
                throw new IllegalStateException(c.name() + " could not take free key " + k);
            }
            one.unlock(h);
        }
    }

    private static Result check(String contender, String backend, Scenario scenario, Result r) {
        String where = contender + " " + backend + " " + scenario.name() + ": ";
        if (r.maxHolders() > 1) {
            throw new IllegalStateException(where + r.maxHolders() + " holders at once");
        }
        if (r.failures() > 0) {
            throw new IllegalStateException(where + r.failures() + " failed operations");
        }
        if (r.acquisitions() == 0) {
            throw new IllegalStateException(where + "no acquisition at all");
        }
        return r;
    }

    /** This round's ratios, kept as samples so that their spread over rounds can be shown. */
    private static void roundRatios(Figures f, String b, Scenario scenario, List<String> contenders) {
        String base = "lease." + b + "." + scenario.name() + ".";
        for (String[] pair : pairs(contenders)) {
            List<Double> num = f.samples(base + pair[0]);
            List<Double> den = f.samples(base + pair[1]);
            f.sample(
                    base + pair[0] + "_vs_" + pair[1] + ".per_round",
                    num.get(num.size() - 1) / den.get(den.size() - 1),
                    "x");
            List<Double> numCpu = f.samples(base + pair[0] + ".cpu_us_per_op");
            List<Double> denCpu = f.samples(base + pair[1] + ".cpu_us_per_op");
            // ops per CPU-second, as a ratio: above 1 means the first needs less CPU per acquire+release
            f.sample(
                    base + pair[0] + "_vs_" + pair[1] + ".cpu.per_round",
                    denCpu.get(denCpu.size() - 1) / numCpu.get(numCpu.size() - 1),
                    "x");
        }
    }

    private static List<String[]> pairs(List<String> contenders) {
        List<String[]> out = new ArrayList<>();
        String[][] all = {
            {"leasesync", "shedlock"},
            {"leasesync", "raw"},
            {"shedlock", "raw"},
            {BEFORE, "shedlock"},
            {"leasesync", BEFORE}
        };
        for (String[] p : all) {
            if (contenders.contains(p[0]) && contenders.contains(p[1])) {
                out.add(p);
            }
        }
        return out;
    }

    private static void print(Figures f, String b, List<Scenario> scenarios, List<String> contenders) {
        f.print("lease." + b + ".load_at_start", "lease." + b + ".load_at_end");
        for (Scenario scenario : scenarios) {
            String base = "lease." + b + "." + scenario.name() + ".";
            for (String c : contenders) {
                f.print(base + c, base + c + ".cpu_us_per_op", base + c + ".max_holders");
                // the best round: disturbance by other work only ever lowers throughput and raises CPU per op
                f.note(String.format(
                        Locale.ROOT,
                        "%s best round: %.0f ops/s, %.2f us CPU per op",
                        base + c,
                        f.samples(base + c).stream()
                                .mapToDouble(Double::doubleValue)
                                .max()
                                .orElse(Double.NaN),
                        f.samples(base + c + ".cpu_us_per_op").stream()
                                .mapToDouble(Double::doubleValue)
                                .min()
                                .orElse(Double.NaN)));
            }
            for (String[] p : pairs(contenders)) {
                // The median of the per-round ratios: within a round the contenders ran seconds apart,
                // so a change of the machine's load between rounds cancels out of each round's ratio.
                String name = base + p[0] + "_vs_" + p[1];
                for (String which : List.of("", ".cpu")) {
                    List<Double> perRound = f.samples(name + which + ".per_round");
                    f.ratio(name + which, Figures.median(perRound));
                    f.note(String.format(
                            Locale.ROOT,
                            "%s%s per round: min %.2f max %.2f; ratio of medians %.2f",
                            name,
                            which,
                            perRound.stream()
                                    .mapToDouble(Double::doubleValue)
                                    .min()
                                    .orElse(Double.NaN),
                            perRound.stream()
                                    .mapToDouble(Double::doubleValue)
                                    .max()
                                    .orElse(Double.NaN),
                            which.isEmpty()
                                    ? f.median(base + p[0]) / f.median(base + p[1])
                                    : f.median(base + p[1] + ".cpu_us_per_op")
                                            / f.median(base + p[0] + ".cpu_us_per_op")));
                }
            }
        }
    }

    /** Instances by contender and slot (0: the shared one, 1 + t: thread t's own); used by one thread. */
    private static final Map<LeaseContenders.Contender, Map<Integer, LeaseContenders.Instance>> INSTANCES =
            new IdentityHashMap<>();

    /**
     * The contender's instance in {@code slot}, created on first use and kept for every later slice:
     * instances live as long as the processes they stand for, so what one learns (ShedLock's
     * provider remembers which lock rows it has created; a registry what it has observed) carries
     * over from round to round, as it would in a long-running process.
     */
    static LeaseContenders.Instance instance(LeaseContenders.Contender c, int slot) throws Exception {
        Map<Integer, LeaseContenders.Instance> slots = INSTANCES.computeIfAbsent(c, k -> new HashMap<>());
        LeaseContenders.Instance i = slots.get(slot);
        if (i == null) {
            i = c.newInstance();
            slots.put(slot, i);
        }
        return i;
    }

    /** Runs one scenario for {@code length} (in the contender's own JVM, {@link LeaseBenchChild}). */
    static Result measure(LeaseContenders.Contender c, Scenario scenario, int keys, Duration length) throws Exception {
        int threads = scenario.threads();
        LeaseContenders.Instance shared = scenario.instancePerThread() ? null : instance(c, 0);
        AtomicLong acquisitions = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong workerCpu = new AtomicLong();
        // A slice lasts its length and until some thread has acquired once: on a loaded machine a
        // short slice can otherwise pass before the first grant, and a slice without one measures nothing.
        AtomicBoolean anyAcquired = new AtomicBoolean();
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        long[] window = new long[2];
        for (int t = 0; t < threads; t++) {
            LeaseContenders.Instance mine = shared != null ? shared : instance(c, 1 + t);
            Thread w = new Thread(
                    () -> {
                        try {
                            start.await();
                            long cpu0 = THREADS.getCurrentThreadCpuTime();
                            long end = window[1];
                            ThreadLocalRandom random = ThreadLocalRandom.current();
                            long mineAcquired = 0;
                            while (System.nanoTime() < end || !anyAcquired.get()) {
                                int key = scenario.oneKey() ? 0 : random.nextInt(keys);
                                Object h = mine.tryLock(key);
                                if (h == null) {
                                    Thread.yield(); // lost: let the holder run (2 cores, 8 threads), then try again
                                    continue;
                                }
                                if (scenario.oneKey()) { // over many keys, several are held at once, legitimately
                                    int now = holders.incrementAndGet();
                                    maxHolders.accumulateAndGet(now, Math::max);
                                    Thread.onSpinWait();
                                    holders.decrementAndGet();
                                }
                                mine.unlock(h);
                                if (mineAcquired++ == 0) {
                                    anyAcquired.set(true);
                                }
                            }
                            acquisitions.addAndGet(mineAcquired);
                            workerCpu.addAndGet(THREADS.getCurrentThreadCpuTime() - cpu0);
                        } catch (Throwable e) {
                            failures.incrementAndGet();
                            firstFailure.compareAndSet(null, e);
                        }
                    },
                    "lease-bench-" + t);
            workers.add(w);
            w.start();
        }
        long dbCpuBefore = c.databaseCpuNanos();
        long cpuBefore = processCpuNanos();
        window[0] = System.nanoTime();
        window[1] = window[0] + length.toNanos();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long elapsed = Math.max(System.nanoTime() - window[0], 1);
        // The process clock counts 10 ms ticks (times(2)), so a short slice can read 0; the workers'
        // own thread clocks are precise but miss GC and JIT. The larger of the two is the better
        // estimate: the process used at least what its workers used.
        long cpu = Math.max(processCpuNanos() - cpuBefore, workerCpu.get());
        long dbCpu = c.databaseCpuNanos() - dbCpuBefore;
        if (firstFailure.get() != null) {
            firstFailure.get().printStackTrace();
        }
        return new Result(
                acquisitions.get() * 1e9 / elapsed, acquisitions.get(), maxHolders.get(), failures.get(), cpu, dbCpu);
    }

    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    /** CPU time of this JVM so far, in nanoseconds with a resolution of the kernel's clock tick (10 ms). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
