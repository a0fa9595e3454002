package org.leasesync.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Two real JVMs on one data directory (H2 automatic mixed mode) share one registry; the PostgreSQL
 * subclass runs the same two processes on one PostgreSQL database. Task keys and a job key.
 */
@ProcessTest
class TwoProcessLeaseTest {

    static final int ROUNDS = 300;
    static final int HOLDS = 100;

    @TempDir
    Path tmp;

    /** Where the children open their registry: a data directory here, a JDBC URL in the PostgreSQL subclass. */
    String target() {
        return tmp.resolve("data").toString();
    }

    /** Environment for the children (database credentials). */
    Map<String, String> childEnv() {
        return Map.of();
    }

    @Test
    void twoProcessesOnOneDataDirectoryGetExactlyOneGrantPerRound() throws Exception {
        String target = target();
        Path go = tmp.resolve("go");
        List<Process> procs = new ArrayList<>();
        List<Path> outs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Path out = tmp.resolve("out-" + i);
            outs.add(out);
            procs.add(JavaProcess.start(
                    LeaseContenderMain.class,
                    tmp.resolve("log-" + i),
                    childEnv(),
                    target,
                    go.toString(),
                    out.toString(),
                    Integer.toString(ROUNDS),
                    Integer.toString(HOLDS)));
        }
        for (Path out : outs) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!(Files.exists(out) && Files.readString(out).contains("READY"))) {
                assertThat(System.nanoTime())
                        .as("child did not open the database: %s", logs())
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
        }
        Files.createFile(go);
        for (Path out : outs) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.readString(out).contains("DONE")) {
                assertThat(System.nanoTime())
                        .as("child did not finish: %s", logs())
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
        }
        Files.createFile(tmp.resolve("go.end"));
        for (Process p : procs) {
            assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
            assertThat(p.exitValue()).as(logs()).isZero();
        }
        Map<Integer, Integer> winsPerRound = new HashMap<>();
        List<long[]> holds = new ArrayList<>();
        List<long[]> jobHolds = new ArrayList<>();
        int[] winsPerProcess = new int[2];
        for (int i = 0; i < 2; i++) {
            List<String> lines = Files.readAllLines(outs.get(i));
            assertThat(lines).contains("DONE");
            for (String line : lines) {
                String[] p = line.split(" ");
                if (p[0].equals("WIN")) {
                    winsPerRound.merge(Integer.parseInt(p[1]), 1, Integer::sum);
                    assertThat(Long.parseLong(p[2])).isEqualTo(1);
                    winsPerProcess[i]++;
                } else if (p[0].equals("HOLD")) {
                    holds.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2]), Long.parseLong(p[3])});
                } else if (p[0].equals("JOBHOLD")) {
                    jobHolds.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2]), Long.parseLong(p[3])});
                }
            }
        }
        assertThat(winsPerRound).hasSize(ROUNDS);
        assertThat(winsPerRound.values()).allMatch(n -> n == 1);
        // the shared key: epochs unique and hold intervals (same monotonic clock on one machine) disjoint
        assertThat(holds).hasSize(2 * HOLDS);
        assertThat(holds.stream().map(h -> h[0]).distinct().count()).isEqualTo(2L * HOLDS);
        holds.sort((x, y) -> Long.compare(x[0], y[0]));
        for (int i = 1; i < holds.size(); i++) {
            assertThat(holds.get(i)[1])
                    .as("hold of epoch %d starts after epoch %d ended", holds.get(i)[0], holds.get(i - 1)[0])
                    .isGreaterThan(holds.get(i - 1)[2]);
        }
        // the rows the two processes left in their shared database
        try (LocalStore store = LeaseContenderMain.open(target, childEnv())) {
            assertThat(store.leases()
                            .read(org.leasesync.lease.TaskKey.of("shared", "course_sync"))
                            .orElseThrow()
                            .epoch())
                    .isEqualTo(2L * HOLDS);
            assertThat(store.leases()
                            .read(org.leasesync.lease.JobKey.of("two-process-job"))
                            .orElseThrow()
                            .epoch())
                    .isEqualTo(2L * HOLDS);
            assertThat(store.leases().readAll())
                    .hasSize(ROUNDS + 2)
                    .filteredOn(r -> !r.key().asString().startsWith("round-"))
                    .noneMatch(r -> r.isHeld());
        }
        // the shared job key: the same, and its epochs are exactly 1..2*HOLDS (each grant one higher)
        jobHolds.sort((x, y) -> Long.compare(x[0], y[0]));
        assertThat(jobHolds)
                .extracting(h -> h[0])
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 2L * HOLDS)
                        .boxed()
                        .toList());
        for (int i = 1; i < jobHolds.size(); i++) {
            assertThat(jobHolds.get(i)[1])
                    .as("job hold of epoch %d starts after epoch %d ended", jobHolds.get(i)[0], jobHolds.get(i - 1)[0])
                    .isGreaterThan(jobHolds.get(i - 1)[2]);
        }
    }

    private String logs() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 2; i++) {
            try {
                sb.append(Files.readString(tmp.resolve("log-" + i)));
            } catch (Exception e) {
                sb.append("(no log ").append(i).append(")");
            }
        }
        return sb.toString();
    }
}
