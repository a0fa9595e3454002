package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.store.h2.CleanCloseMarker;
import org.leasesync.store.h2.DataDirectory;
import org.leasesync.testing.ProcessTest;

/**
 * The full start-up check (after an unclean close) reads a table larger than the heap: a read-only H2 that
 * held a whole {@code SELECT *} result in memory ran out of it with the app's 256 MB heap on 1,000,000
 * records and reported the intact file as damaged. Here: a real file of 60,000 records of 1 KB
 * each, checked in a child JVM with a 32 MB heap (H2 keeps a 16 MB page cache of its own).
 */
@ProcessTest
class FullCheckMemoryTest {

    @TempDir
    Path dir;

    @Test
    void theFullCheckOfATableLargerThanTheHeapFindsTheFileIntact() throws Exception {
        try (Database db = Database.openFile(dir)) {
            String text = "y".repeat(1000);
            for (int batch = 0; batch < 3; batch++) {
                int from = batch * 20_000;
                db.transaction("seed", c -> {
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO local_record (user_id, scope, record_id,"
                                    + " version, deleted, payload, server_time_ms) VALUES ('alice', 'backup', ?, 1, FALSE, ?, 0)")) {
                        for (int i = from; i < from + 20_000; i++) {
                            ps.setString(1, "r-" + i);
                            ps.setString(2, "{\"n\":" + i + ",\"text\":\"" + text + "\"}");
                            ps.addBatch();
                        }
                        ps.executeBatch();
                    }
                    return null;
                });
            }
        }
        Path file = dir.resolve(DataDirectory.FILE_BASE_NAME + ".mv.db");
        Files.delete(CleanCloseMarker.markerOf(file)); // as after a crash: the full check, every row read
        assertThat(Files.size(file)).isGreaterThan(48L << 20);

        Process p = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx32m",
                        "-XX:+UseSerialGC",
                        "-cp",
                        System.getProperty("java.class.path"),
                        FullCheckMain.class.getName(),
                        file.toString()))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("check: INTACT").doesNotContain("damaged");
        assertThat(p.exitValue()).isZero();
    }
}
