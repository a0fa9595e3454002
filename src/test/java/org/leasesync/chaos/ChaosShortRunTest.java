package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.SlowTest;

/**
 * The short, fixed-seed chaos run CI does on every build (docs/reliability.md): real server and
 * client processes, real kills, pauses, clock jumps and server faults, and time moved the way the OS
 * moves it (agents whose wall clock runs hours ahead or behind, and agents started
 * after a btime step), checked for overlapping runs, duplicate applications, lost edits, stuck keys,
 * cross-user writes and leases stolen from live holders.
 */
@SlowTest
class ChaosShortRunTest {

    static final long SEED = 20261130L;
    static final int ROUNDS = 40;

    @Test
    void aShortFixedSeedChaosRunKeepsEveryPromise(
            @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS) Path work) throws Exception {
        OsTime.Libraries libs = OsTime.buildAids(work.resolve("native")); // fails naming gcc if it is missing
        ChaosHarness.Settings settings = new ChaosHarness.Settings(
                ROUNDS,
                SEED,
                3,
                work,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                JavaProcess.launcher("-Xmx160m"),
                new PrintStream(System.out, true),
                libs);
        ChaosHarness harness = new ChaosHarness(settings);
        ChaosReport report = harness.run();
        System.out.println(report.summaryLine());
        System.out.println(report.takeoverLine());
        System.out.println(harness.osTimeLine());
        report.violations().forEach(v -> {
            System.out.println("[" + v.counter() + "] " + v.what());
            v.history().forEach(l -> System.out.println("    " + l));
        });
        assertThat(report.counts().kills()).as("the run killed processes").isPositive();
        // the OS time faults happened: agents with wall clocks hours ahead and behind, and after a btime step
        assertThat(harness.osTimeStarts(OsTime.Kind.AHEAD))
                .as(harness.osTimeLine())
                .isPositive();
        assertThat(harness.osTimeStarts(OsTime.Kind.BEHIND))
                .as(harness.osTimeLine())
                .isPositive();
        assertThat(harness.osTimeStarts(OsTime.Kind.BTIME))
                .as(harness.osTimeLine())
                .isPositive();
        assertThat(report.counts().runs()).as("the run ran syncs").isGreaterThan(ROUNDS / 2);
        assertThat(report.violations())
                .as(report.summaryLine() + " (seed " + SEED + ")")
                .isEmpty();
    }
}
