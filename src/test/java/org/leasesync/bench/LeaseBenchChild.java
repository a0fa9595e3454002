package org.leasesync.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One lease contender in a JVM of its own, driven line by line over standard input by
 * {@link LeaseBench} (through {@link ContenderProcess}), so that no contender's JIT profile,
 * allocation or garbage collection affects another's. Answers one line per command on standard
 * output; everything else (stack traces, logs) goes to standard error.
 *
 * <pre>
 * open CONTENDER BACKEND JDBC_URL KEYS   → ok            (new pool and contender; first grant of every key)
 * run SCENARIO THREADS ONE_KEY PER_THREAD KEYS MILLIS
 *                                        → result OPS_PER_S ACQUISITIONS MAX_HOLDERS FAILURES JVM_CPU_NS DB_CPU_NS
 * close                                  → ok            (closes the contender and its pool)
 * quit                                   → (exits)
 * </pre>
 * A command that fails answers {@code error MESSAGE}.
 */
public final class LeaseBenchChild {

    private LeaseBenchChild() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        LeaseContenders.Contender contender = null;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] w = line.trim().split(" ");
            try {
                switch (w[0]) {
                    case "open" -> {
                        if (contender != null) {
                            contender.close();
                        }
                        BenchDatabases.Backend backend = BenchDatabases.Backend.valueOf(w[2]);
                        int keys = Integer.parseInt(w[4]);
                        contender = LeaseContenders.create(w[1], BenchDatabases.open(backend, w[3], w[1]), keys);
                        LeaseBench.firstGrants(contender, keys);
                        out.println("ok");
                    }
                    case "run" -> {
                        LeaseBench.Scenario scenario = new LeaseBench.Scenario(
                                w[1], Integer.parseInt(w[2]), Boolean.parseBoolean(w[3]), Boolean.parseBoolean(w[4]));
                        LeaseBench.Result r = LeaseBench.measure(
                                contender, scenario, Integer.parseInt(w[5]), Duration.ofMillis(Long.parseLong(w[6])));
                        out.println(String.format(
                                Locale.ROOT,
                                "result %.1f %d %d %d %d %d",
                                r.opsPerSecond(),
                                r.acquisitions(),
                                r.maxHolders(),
                                r.failures(),
                                r.jvmCpuNanos(),
                                r.dbCpuNanos()));
                    }
                    case "close" -> {
                        if (contender != null) {
                            contender.close();
                            contender = null;
                        }
                        out.println("ok");
                    }
                    case "quit" -> {
                        return;
                    }
                    default -> out.println("error unknown command " + w[0]);
                }
            } catch (Exception | Error e) {
                e.printStackTrace();
                out.println("error " + String.valueOf(e).replace('\n', ' '));
            }
        }
    }
}
