package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short, fixed-seed chaos run CI does on every build (docs/reliability.md): real server and
 * client processes, real kills, pauses, clock jumps and server faults, checked for overlapping runs,
 * duplicate applications, lost edits, stuck keys and cross-user writes.
 */
class ChaosShortRunTest {

    static final long SEED = 20261130L;
    static final int ROUNDS = 40;

    @Test
    void aShortFixedSeedChaosRunKeepsEveryPromise(@TempDir Path work) throws Exception {
        ChaosHarness.Settings settings = new ChaosHarness.Settings(ROUNDS, SEED, 3, work, Duration.ofSeconds(3),
                Duration.ofSeconds(2), ChaosCommand.javaCommand(), new PrintStream(System.out, true));
        ChaosReport report = new ChaosHarness(settings).run();
        System.out.println(report.summaryLine());
        System.out.println(report.takeoverLine());
        report.violations().forEach(v -> {
            System.out.println("[" + v.counter() + "] " + v.what());
            v.history().forEach(l -> System.out.println("    " + l));
        });
        assertThat(report.counts().kills()).as("the run killed processes").isPositive();
        assertThat(report.counts().runs()).as("the run ran syncs").isGreaterThan(ROUNDS / 2);
        assertThat(report.violations()).as(report.summaryLine() + " (seed " + SEED + ")").isEmpty();
    }
}
