package org.leasesync.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * {@link GrowthBench}'s child JVM (one per data directory and round, started with the app's heap
 * options): opens the directory as the app does, runs one sync of the key and reads the Data tab's
 * first page, then, the store still open, a full GC and a pause, and prints one line
 * {@code growth-child open_ms=.. sync_ms=.. heap_mb=.. rss_mb=..} (RSS from {@code /proc/self/status}).
 * Arguments: the data directory, the server's base URL, alice's token, and optionally H2's page cache
 * size in KB ({@code SET CACHE_SIZE}, right after the open; default: the URL's, 16 MB).
 */
final class GrowthChild {

    private GrowthChild() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        if (args.length > 1 && args[1].equals("--phases")) {
            StringBuilder line = new StringBuilder("growth-child");
            org.leasesync.store.OpenPhases.run(dir)
                    .forEach((step, ms) -> line.append(String.format(java.util.Locale.ROOT, " %s_ms=%.1f", step, ms)));
            System.out.println(line);
            System.exit(0);
        }
        if (args.length > 1 && args[1].equals("--open-only")) {
            openOnly(dir);
            return;
        }
        TaskKey key = TaskKey.of("alice", "course_sync");
        long t0 = System.nanoTime();
        try (LocalStore store = LocalStore.openFile(dir)) {
            double openMs = (System.nanoTime() - t0) / 1e6;
            if (args.length > 3) { // the CACHE_SIZE lever, tried without changing the app's URL
                int kb = Integer.parseInt(args[3]);
                store.database().query("set the page cache", c -> {
                    try (var st = c.createStatement()) {
                        st.execute("SET CACHE_SIZE " + kb);
                    }
                    return null;
                });
            }
            try (ClientStack client = new ClientStack(store, args[1], Map.of("alice", args[2]))) {
                client.keepLeasesAlive();
                long s0 = System.nanoTime();
                RunResult r = client.sync(key, TaskSource.MANUAL);
                double syncMs = (System.nanoTime() - s0) / 1e6;
                if (r.status() != RunStatus.SUCCEEDED) {
                    throw new IllegalStateException("the sync did not succeed: " + r);
                }
                if (client.edits.recordsPage(key, Optional.empty(), 201).isEmpty()) {
                    throw new IllegalStateException("the data tab read nothing");
                }
                System.gc();
                Thread.sleep(1500);
                System.gc();
                Runtime rt = Runtime.getRuntime();
                double heapMb = (rt.totalMemory() - rt.freeMemory()) / 1e6;
                System.out.printf(
                        java.util.Locale.ROOT,
                        "growth-child open_ms=%.1f sync_ms=%.1f heap_mb=%.1f rss_mb=%.1f%n",
                        openMs,
                        syncMs,
                        heapMb,
                        rssMb());
            }
        }
        System.exit(0);
    }

    /**
     * {@code --open-only}: the app's open of the directory in this fresh JVM and its clean close, nothing
     * else; prints {@code growth-child open_ms=.. opencpu_ms=.. close_ms=.. closecpu_ms=..}
     * (wall, and the process's CPU time over all its threads) ({@link GrowthBench#runOpen}).
     */
    private static void openOnly(Path dir) {
        var os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        LocalStore store = LocalStore.openFile(dir);
        double openMs = (System.nanoTime() - t0) / 1e6;
        long cpu1 = os.getProcessCpuTime();
        long c0 = System.nanoTime();
        store.close();
        double closeMs = (System.nanoTime() - c0) / 1e6;
        long cpu2 = os.getProcessCpuTime();
        System.out.printf(
                java.util.Locale.ROOT,
                "growth-child open_ms=%.1f opencpu_ms=%.1f close_ms=%.1f closecpu_ms=%.1f%n",
                openMs,
                (cpu1 - cpu0) / 1e6,
                closeMs,
                (cpu2 - cpu1) / 1e6);
        System.exit(0);
    }

    private static double rssMb() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        return Double.NaN;
    }
}
