package org.leasesync.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.leasesync.store.h2.CleanCloseMarker;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.store.h2.DatabaseFileCheck;

/**
 * Benchmark support ({@code GrowthBench} {@code growth_open}): the steps of
 * {@link Database#openFile} timed one by one in a fresh JVM, so that the difference between opening a
 * big and an empty data directory can be put on a step: the start-up check
 * ({@link DatabaseFileCheck#check}), H2's open of the file (the first connection on the app's URL), the
 * schema-version query ({@link SchemaVersion}'s), and the close of that connection (H2's close of the file,
 * with its compaction). Without the pool and the open thread of the real path: their cost does not depend
 * on the data. Not thread-safe; blocks on the file.
 */
public final class OpenPhases {

    private OpenPhases() {}

    /**
     * @return milliseconds per step (wall; {@code STEPcpu}: the process's CPU time in it, all threads), in order: {@code marker} (and {@code markerok}: 1 if the clean-close marker matched, else 0), {@code check}, {@code h2open}, {@code schema}, {@code h2close}
     */
    public static Map<String, Double> run(Path dataDir) throws Exception {
        Path dir = dataDir.toAbsolutePath().normalize();
        Path file = dir.resolve(DataDirectory.FILE_BASE_NAME + ".mv.db");
        Map<String, Double> ms = new LinkedHashMap<>();
        cpuSince = OS.getProcessCpuTime();
        long t = System.nanoTime();
        boolean marker = CleanCloseMarker.matches(file);
        t = lap(ms, "marker", t);
        ms.put("markerok", marker ? 1.0 : 0.0);
        DatabaseFileCheck.Result checked = DatabaseFileCheck.check(file);
        if (checked != DatabaseFileCheck.Result.INTACT) {
            throw new IllegalStateException(file + ": " + checked);
        }
        t = lap(ms, "check", t);
        Connection c = DriverManager.getConnection(DataDirectory.fileUrl(dir), "sa", "");
        t = lap(ms, "h2open", t);
        int rows = 0;
        try (Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT \"version\", \"success\", \"type\" FROM \"flyway_schema_history\"")) {
            while (rs.next()) {
                rows++;
            }
        }
        if (rows < SqlDialect.LATEST_CLIENT_MIGRATION) {
            throw new IllegalStateException(file + ": " + rows + " schema history rows");
        }
        t = lap(ms, "schema", t);
        c.close();
        lap(ms, "h2close", t);
        CleanCloseMarker.writeIfAtRest(file);
        return ms;
    }

    private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static long cpuSince;

    /** Wall time of the step as {@code step}, and the whole process's CPU time in it (all threads: JIT, GC) as {@code stepcpu}. */
    private static long lap(Map<String, Double> ms, String step, long since) {
        long now = System.nanoTime();
        long cpu = OS.getProcessCpuTime();
        ms.put(step, (now - since) / 1e6);
        ms.put(step + "cpu", (cpu - cpuSince) / 1e6);
        cpuSince = cpu;
        return now;
    }
}
