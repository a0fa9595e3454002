package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;

/**
 * The cluster harness end to end on loopback: three real {@code serve --db} processes on one real
 * PostgreSQL, four real client processes on three devices, seeded {@code drop-after-apply} and
 * {@code kill -9} of instances mid-push or mid-job with restarts, the server's jobs running every few
 * seconds, then the drain and the checks — the job check on the real job runs. The network
 * faults go to a recorder here (they need root and namespaces; scale/cluster.sh makes them real),
 * which proves the harness asks for them and heals each one.
 */
@ProcessTest
@PostgresTest
class ClusterShortRunTest {

    static final long SEED = 7L;
    static final int ROUNDS = 25;

    /** Records the faults asked for; changes nothing. */
    static final class RecordingNetworkFaults implements NetworkFaults {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());

        @Override
        public String set(Kind kind, int instance, int lossPercent, boolean on) {
            calls.add(kind.label + " " + instance + " " + (on ? "on" : "off"));
            return "recorded";
        }

        @Override
        public void healAll() {
            calls.add("heal-all");
        }
    }

    @Test
    void aShortSeededClusterRunKillsInstancesMidPushAndKeepsEveryPromise(@TempDir Path work) throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        List<ServerInstances.Spec> specs = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            specs.add(new ServerInstances.Spec("127.0.0.1", freePort(), List.of()));
        }
        RecordingNetworkFaults net = new RecordingNetworkFaults();
        ClusterHarness.Settings settings = new ClusterHarness.Settings(
                ROUNDS,
                SEED,
                specs,
                List.of(),
                db.jdbcUrl(),
                db.env(),
                net,
                work,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                JavaProcess.launcher("-Xmx160m"),
                new PrintStream(System.out, true));

        ClusterReport report = new ClusterHarness(settings).run();

        System.out.println(report.summaryLine());
        report.violations().forEach(v -> {
            System.out.println("[" + v.counter() + "] " + v.what());
            v.history().forEach(l -> System.out.println("    " + l));
        });
        assertThat(report.counts().kills()).as("instances were killed").isPositive();
        assertThat(report.counts().partitions())
                .as("network faults were asked for")
                .isPositive();
        List<String> calls = List.copyOf(net.calls);
        assertThat(calls).last().isEqualTo("heal-all");
        for (String on : calls.stream().filter(c -> c.endsWith(" on")).toList()) {
            String off = on.substring(0, on.length() - 2) + "off";
            assertThat(calls.stream().filter(c -> c.equals(off)).count())
                    .as("healed: " + on)
                    .isEqualTo(calls.stream().filter(c -> c.equals(on)).count());
        }
        assertThat(report.summaryLine()).startsWith("instances=3 rounds=" + ROUNDS + " ");
        assertThat(report.violations())
                .as(report.summaryLine() + " (seed " + SEED + ")")
                .isEmpty();
        assertThat(report.jobHistoryGaps()).isEmpty();
        assertThat(report.passed()).isTrue();
        assertThat(work.resolve("audit.jsonl")).isNotEmptyFile();
        // the job check saw real runs of every job, read from PostgreSQL
        System.out.println("job check: " + report.jobNote());
        Matcher checked = Pattern.compile("^(\\d+) server job runs checked").matcher(report.jobNote());
        assertThat(checked.find()).as(report.jobNote()).isTrue();
        assertThat(Integer.parseInt(checked.group(1)))
                .as(report.jobNote())
                .isGreaterThanOrEqualTo(StandardJobs.NAMES.size());
        for (String job : StandardJobs.NAMES) {
            assertThat(report.jobNote()).contains(job + " ");
        }
        List<String> runs = Files.readAllLines(work.resolve("job-runs.txt"));
        assertThat(runs).as("job-runs.txt").anyMatch(l -> l.contains(" ok processed "));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
