package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.leasesync.testing.ProcessTest;

/**
 * scale/cluster.sh refuses bad arguments before it touches anything (no namespace, no package, no
 * build): exit code 2 and one line naming the bad value. The run itself needs root and is
 * docs/scale-out.md's business.
 */
@ProcessTest
class ClusterScriptArgumentsTest {

    private static final Path SCRIPT = Path.of("scale", "cluster.sh");

    @Test
    void aRoundCountThatIsNoWholeNumberIsRefusedNamingIt() throws Exception {
        Result r = run("--rounds", "many");
        assertThat(r.code).isEqualTo(2);
        assertThat(r.err).contains("--rounds must be a whole number from 1 to 100000, got 'many'");
    }

    @Test
    void zeroRoundsAreRefused() throws Exception {
        assertThat(run("--rounds", "0").err).contains("got '0'");
    }

    @Test
    void aSeedThatIsNoNumberIsRefusedNamingIt() throws Exception {
        Result r = run("--seed", "4x2");
        assertThat(r.code).isEqualTo(2);
        assertThat(r.err).contains("--seed must be a whole number").contains("'4x2'");
    }

    @Test
    void anUnknownArgumentIsRefusedWithTheUsage() throws Exception {
        Result r = run("--instances", "5");
        assertThat(r.code).isEqualTo(2);
        assertThat(r.err).contains("unknown argument '--instances'").contains("--rounds N");
    }

    @Test
    void helpPrintsTheUsageAndTheSummaryLine() throws Exception {
        Result r = run("--help");
        assertThat(r.code).isZero();
        assertThat(r.out)
                .contains("bash scale/cluster.sh [--rounds N] [--seed S] [--keep]")
                .contains("duplicates=0 lost=0 overlaps=0 fencing_violations=0 job_double_runs=0");
    }

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) throws IOException, InterruptedException {
        assertThat(SCRIPT).exists();
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("cluster-sh", ".out");
        Path err = Files.createTempFile("cluster-sh", ".err");
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            assertThat(p.waitFor(30, TimeUnit.SECONDS))
                    .as("cluster.sh answered at once")
                    .isTrue();
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
