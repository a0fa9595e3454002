package org.leasesync.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Writes, per test class, the CPU seconds it cost and its wall seconds to
 * {@code target/test-cpu/PID.tsv} (one line per class: class, CPU s, wall s).
 *
 * <p>Why: on two cores the full build is bound mostly by CPU, so what makes it long is the CPU each
 * class burns, which Surefire's reports do not say; a class whose wall time is far above its CPU
 * is waiting, which a second test JVM overlaps. The CPU is this test JVM's own plus that
 * of every child process it has reaped ({@code /proc/self/stat}: utime, stime, cutime, cstime), so a
 * class that starts child JVMs, Xvfb or PostgreSQL is charged for them once they exit; an embedded
 * PostgreSQL still running when its class ends is charged to the class that stops it. Exact when one
 * class runs at a time in a JVM (Surefire's forks, docs/testing.md). Registered for every test run
 * through {@code META-INF/services}; on a system without {@code /proc} it writes nothing.
 */
public final class CpuPerClass implements TestExecutionListener {

    private static final Path SELF_STAT = Path.of("/proc/self/stat");
    private final Map<String, long[]> started = new ConcurrentHashMap<>();

    @Override
    public void executionStarted(TestIdentifier id) {
        className(id).ifPresent(c -> {
            long cpu = cpuTicks();
            if (cpu >= 0) {
                started.put(c, new long[] {cpu, System.nanoTime()});
            }
        });
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        className(id).ifPresent(c -> {
            long[] s = started.remove(c);
            long cpu = cpuTicks();
            if (s == null || cpu < 0) {
                return;
            }
            // USER_HZ is 100 on every Linux the JDK runs on
            String line = String.format(
                    Locale.ROOT, "%s\t%.2f\t%.2f%n", c, (cpu - s[0]) / 100.0, (System.nanoTime() - s[1]) / 1e9);
            try {
                Path dir = Path.of("target", "test-cpu");
                Files.createDirectories(dir);
                Files.writeString(
                        dir.resolve(ProcessHandle.current().pid() + ".tsv"),
                        line,
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                // a measurement aid: a test run never fails for it
            }
        });
    }

    private static java.util.Optional<String> className(TestIdentifier id) {
        return id.getSource().filter(ClassSource.class::isInstance).map(s -> ((ClassSource) s).getClassName());
    }

    /** utime + stime + cutime + cstime of this process in clock ticks, or -1 when unreadable. */
    private static long cpuTicks() {
        try {
            String stat = Files.readString(SELF_STAT, StandardCharsets.US_ASCII);
            // the command name (field 2) may hold spaces: the fields after it start past its ')'
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
