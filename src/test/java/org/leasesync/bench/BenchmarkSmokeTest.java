package org.leasesync.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs every benchmark with tiny sizes ({@code --quick}) so the suite keeps compiling and working.
 * Asserts that each figure is produced and that the invariants held (the runner itself fails on
 * two holders at once, overlapping runs, lost pushes or a wrong takeover epoch); never speed.
 */
class BenchmarkSmokeTest {

    @TempDir
    Path tmp;

    @Test
    void everyBenchmarkProducesItsFiguresWithTinySizes() throws Exception {
        BenchMain main = new BenchMain();
        new CommandLine(main).setCaseInsensitiveEnumValuesAllowed(true)
                .parseArgs("--quick", "--work-dir", tmp.toString());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Figures f = new Figures(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        main.quick();
        main.run(f, tmp);
        List<String> lines = Arrays.asList(bytes.toString(StandardCharsets.UTF_8).split("\n"));
        assertThat(lines).as("every figure is 'name value unit'")
                .allMatch(l -> l.startsWith("#") || l.matches("\\S+ -?[0-9.]+ \\S+"));
        for (String name : List.of("lease.mem.1t1k.leasesync", "lease.file.8t1k.shedlock", "lease.mem.8t1000k.raw",
                "trigger.file.idle.started.p99", "trigger.mem.storm.all.p99", "sync.pull", "sync.push",
                "sync.direct_insert", "takeover.provable.kill_to_grant", "takeover.unprovable.kill_to_grant")) {
            assertThat(f.median(name)).as(name).isPositive();
        }
        for (String scenario : List.of("mem.8t1k", "file.8t1k", "mem.1t1k")) {
            for (String c : List.of("leasesync", "shedlock", "raw")) {
                assertThat(f.has("lease." + scenario + "." + c)).as(scenario + " " + c).isTrue();
            }
        }
        assertThat(f.median("lease.mem.8t1k.leasesync.max_holders")).isEqualTo(1.0);
        assertThat(f.median("lease.file.8t1k.shedlock.max_holders")).isEqualTo(1.0);
        assertThat(f.median("trigger.file.storm.overlaps")).isZero();
        assertThat(f.median("trigger.mem.storm.overlaps")).isZero();
        assertThat(lines).anyMatch(l -> l.startsWith("ratio.lease.mem.1t1k.leasesync_vs_shedlock "));
    }
}
