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
import org.leasesync.testing.SlowTest;
import picocli.CommandLine;

/**
 * Runs every benchmark with tiny sizes ({@code --quick}) so the suite keeps compiling and working,
 * on H2 and on PostgreSQL (the tests' server): the lease contenders each in a JVM of its own, and
 * real {@code serve} processes, two on one PostgreSQL and one on H2, and the server's jobs on two
 * {@code serve} processes on PostgreSQL with a third killed mid-run in each takeover mode. Asserts that each figure is
 * produced and that the invariants held (the runner itself fails on two holders at once, overlapping
 * runs, a push not applied exactly once, a pull pass that misses or repeats a record, or a wrong
 * takeover epoch, an occurrence of a server job run twice, a job lease taken from a live instance);
 * never speed.
 */
@SlowTest
class BenchmarkSmokeTest {

    @TempDir
    Path tmp;

    @Test
    void everyBenchmarkProducesItsFiguresWithTinySizes() throws Exception {
        BenchMain main = new BenchMain();
        new CommandLine(main)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .parseArgs("--quick", "--work-dir", tmp.toString());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Figures f = new Figures(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        main.quick();
        main.run(f, tmp);
        List<String> lines =
                Arrays.asList(bytes.toString(StandardCharsets.UTF_8).split("\n"));
        assertThat(lines)
                .as("every figure is 'name value unit'")
                .allMatch(l -> l.startsWith("#") || l.matches("\\S+ -?[0-9.]+ \\S+"));
        for (String name : List.of(
                "lease.mem.1t1k.leasesync",
                "lease.file.8r1k.shedlock",
                "lease.mem.8t1000k.raw",
                "lease.pg_nofsync.8r1000k.leasesync",
                "lease.pg_nofsync.1t1k.leasesync.cpu_us_per_op",
                "trigger.file.idle.started.p99",
                "trigger.mem.storm.all.p99",
                "sync.pull",
                "sync.push",
                "sync.direct_insert",
                "scale.pg2.push",
                "scale.pg2.pull",
                "scale.pg2.push.server_cpu_us_per_request",
                "scale.pg2.pull.db_cpu_us_per_request",
                "scale.h2file1.push",
                "scale.h2file1.pull",
                "takeover.provable.kill_to_grant",
                "takeover.unprovable.kill_to_grant",
                "growth.big.freshopen",
                "growth.empty.freshopen.cpu",
                "growth.big.phase.h2open",
                "growth.empty.phase.check")) {
            assertThat(f.median(name)).as(name).isPositive();
        }
        for (String backend : List.of("mem", "file", "pg_nofsync")) {
            for (String scenario : List.of("1t1k", "8t1000k", "8r1000k", "8r1k")) {
                for (String c : List.of("leasesync", "shedlock", "raw")) {
                    String name = "lease." + backend + "." + scenario + "." + c;
                    assertThat(f.median(name)).as(name).isPositive();
                }
            }
            for (String c : List.of("leasesync", "shedlock", "raw")) {
                assertThat(f.median("lease." + backend + ".8r1k." + c + ".max_holders"))
                        .as(backend + " " + c)
                        .isEqualTo(1.0);
            }
        }
        assertThat(f.median("trigger.file.storm.overlaps")).isZero();
        assertThat(f.median("trigger.mem.storm.overlaps")).isZero();
        assertThat(lines).anyMatch(l -> l.startsWith("ratio.lease.mem.1t1k.leasesync_vs_shedlock "));
        assertThat(lines).anyMatch(l -> l.startsWith("ratio.lease.pg_nofsync.8r1k.leasesync_vs_shedlock.cpu "));
        assertThat(lines).anyMatch(l -> l.startsWith("# scale pg2: pull "));
        // Server jobs: three timed jobs on two instances, each occurrence run once (the runner checks
        // it, and fails on a lease taken from the live victim or a takeover that does not resume it).
        assertThat(f.median("jobs.due_to_started.runs"))
                .as("occurrences measured")
                .isGreaterThanOrEqualTo(3 * 3);
        assertThat(f.median("jobs.due_to_started.min"))
                .as("no run starts before it is due")
                .isNotNegative();
        for (String mode : List.of("provable", "unprovable")) {
            assertThat(f.samples("jobs." + mode + ".kill_to_takeover.min"))
                    .as(mode)
                    .hasSize(1);
            assertThat(f.median("jobs." + mode + ".kill_to_takeover.min"))
                    .as("no takeover before the kill: " + mode)
                    .isNotNegative();
        }
        assertThat(f.median("jobs.unprovable.renewal_to_takeover.min"))
                .as("an unprovably dead holder's lease is taken over no earlier than a TTL after its last renewal")
                .isGreaterThanOrEqualTo(f.median("jobs.ttl") - 5);
    }
}
