package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * SIGTERM logs a clean stop: {@code serve}, {@code sync} and the window, each a real
 * process stopped with SIGTERM ({@link Process#destroy()}) mid-work. Each says it stopped cleanly,
 * exits with 143 (128 + SIGTERM), and a client's runs end "cancelled" with their leases free at once
 * — not after a TTL.
 */
@ProcessTest
class SignalStopProcessTest {

    @TempDir
    Path tmp;

    final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    static void waitUntil(String what, long seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(100);
        }
    }

    static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** A reference server whose every request takes {@code latency}; returns its URL and alice's token. */
    String[] slowServer(String latency) throws Exception {
        CliProcess serve = CliProcess.start(
                tmp, "serve", List.of("serve", "--port", "0", "--seed", "demo", "--fault", "latency=" + latency));
        started.add(serve.process);
        Path out = tmp.resolve("serve.out");
        waitUntil("serve printed its tokens", 60, () -> read(out).contains("token admin "));
        String url = read(out)
                .lines()
                .filter(l -> l.startsWith("listening on "))
                .findFirst()
                .orElseThrow()
                .substring("listening on ".length());
        String token = read(out)
                .lines()
                .filter(l -> l.startsWith("token alice "))
                .findFirst()
                .orElseThrow()
                .substring("token alice ".length());
        return new String[] {url, token};
    }

    @Test
    void serveStopsCleanlyOnSigterm() throws Exception {
        CliProcess serve = CliProcess.start(tmp, "serve", List.of("serve", "--port", "0", "--seed", "demo"));
        started.add(serve.process);
        waitUntil(
                "serve printed its tokens",
                60,
                () -> read(tmp.resolve("serve.out")).contains("token admin "));
        serve.process.destroy();
        CliProcess.Result r = serve.await(30);
        assertThat(r.code()).as(r.both()).isEqualTo(143);
        assertThat(r.err())
                .containsPattern("(?m)^serve: stopping \\(SIGTERM or Ctrl-C\\): instance \\S+$")
                .endsWith("serve: stopped cleanly\n")
                .doesNotContain("Exception", "\tat ");
    }

    @Test
    void syncCancelsItsRunReleasesTheLeaseAndSaysSoOnSigterm() throws Exception {
        String[] server = slowServer("20s");
        Path data = tmp.resolve("client");
        CliProcess sync = CliProcess.start(
                tmp,
                "sync",
                List.of(
                        "sync",
                        "--user",
                        "alice",
                        "--scope",
                        "backup",
                        "--server",
                        server[0],
                        "--token",
                        server[1],
                        "--data-dir",
                        data.toString()));
        started.add(sync.process);
        Path log = data; // the data directory: LogFiles reads all its log files
        waitUntil(
                "the run started",
                60,
                () -> org.leasesync.testing.LogFiles.read(log).contains("started for alice|backup"));
        sync.process.destroy();
        CliProcess.Result r = sync.await(30);
        assertThat(r.code()).as(r.both()).isEqualTo(143);
        assertThat(r.err())
                .isEqualTo("leasesync: stopping (SIGTERM or Ctrl-C): cancelling the sync of alice|backup "
                        + "and releasing its lease\nleasesync: stopped cleanly\n");
        assertThat(r.out()).isEqualTo("alice|backup sync cancelled: the app is shutting down\n");
        assertThat(org.leasesync.testing.LogFiles.read(log))
                .contains("stopping on a signal: cancelling the sync of alice|backup", "stopped cleanly");
        try (LocalStore store = LocalStore.openFile(data, Duration.ofSeconds(20))) {
            RunRecord run =
                    store.history().lastRun(TaskKey.of("alice", "backup")).orElseThrow();
            assertThat(run.status()).contains(RunStatus.CANCELLED);
            assertThat(run.error()).contains("the app is shutting down");
            assertThat(store.leases().readAll())
                    .singleElement()
                    .satisfies(l -> assertThat(l.isHeld()).as("lease of %s", l).isFalse());
        }
    }

    @Test
    void theWindowCancelsItsRunsReleasesTheLeasesAndLogsACleanStopOnSigterm() throws Exception {
        String[] server = slowServer("20s");
        Path data = tmp.resolve("window");
        Path log = data; // the data directory: LogFiles reads all its log files
        // the real window, on Monocle's headless glass (what the UI tests use), with a 1 s timer
        List<String> cmd = JavaProcess.jvm();
        cmd.addAll(List.of(
                "-Dglass.platform=Monocle",
                "-Dmonocle.platform=Headless",
                "-Dprism.order=sw",
                "-Dtestfx.headless=true",
                "-cp",
                JavaProcess.classPath(),
                Launcher.class.getName(),
                "--data-dir",
                data.toString(),
                "--server",
                server[0],
                "--user",
                "alice",
                "--token",
                server[1],
                "--schedule-interval",
                "1s"));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("window.out").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("LEASESYNC_"));
        pb.environment().putAll(Map.of("LEASESYNC_DATA_DIR", data.toString()));
        Process window = pb.start();
        started.add(window);
        waitUntil("runs of all three scopes started", 90, () -> {
            String l = org.leasesync.testing.LogFiles.read(log);
            return l.contains("started for alice|course_sync")
                    && l.contains("started for alice|message_sync")
                    && l.contains("started for alice|backup");
        });
        window.destroy();
        assertThat(window.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(window.exitValue()).as(read(tmp.resolve("window.out"))).isEqualTo(143);
        String text = org.leasesync.testing.LogFiles.read(log);
        assertThat(text)
                .contains("stopping: the process was told to stop (SIGTERM, Ctrl-C or logout)")
                .contains("org.leasesync.desktop.fx.App - stopped cleanly");
        assertThat(text.substring(text.indexOf("stopping: the process was told to stop")))
                .doesNotContain(" ERROR ");
        assertThat(read(tmp.resolve("window.out"))).doesNotContain("Exception", "\tat ");
        try (LocalStore store = LocalStore.openFile(data, Duration.ofSeconds(20))) {
            for (Scope s : Scope.values()) {
                RunRecord run = store.history().lastRun(new TaskKey("alice", s)).orElseThrow();
                assertThat(run.status()).as(s.wireName()).contains(RunStatus.CANCELLED);
            }
            assertThat(store.leases().readAll())
                    .hasSize(3)
                    .allSatisfy(l -> assertThat(l.isHeld()).isFalse());
        }
    }
}
