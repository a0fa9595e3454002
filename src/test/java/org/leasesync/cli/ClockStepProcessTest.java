package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.LeaseRecord;
import org.leasesync.lease.TaskKey;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.LeaseHolderMain;
import org.leasesync.testing.NativeAids;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.StartInstantMain;

/**
 * A wall-clock step never makes a live process dead. The kernel's boot time
 * ({@code btime}) moves with every step, and {@code ProcessHandle}'s start instant is derived from it,
 * so a process started after a step saw every older process's start shifted and took a live,
 * renewing holder's pid for recycled ("provably dead; taking over", epoch 2). With real processes:
 * a holder renewing every TTL/3, then a real {@code leasesync sync} started with {@code btime}
 * shifted 5 s either way ({@code LD_PRELOAD} aid {@code btime_shift.c}, built by {@link NativeAids}) must join,
 * and the holder keeps epoch 1. And {@code sync}'s watch of a holder that looks stopped holds when
 * the holder's wall clock runs hours ahead or behind (the {@code LD_PRELOAD} wall clock aid).
 */
@ProcessTest
class ClockStepProcessTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void aSyncStartedAfterAClockStepJoinsTheLiveHolderAndNeverTakesItsLease() throws Exception {
        Path lib = NativeAids.btimeShiftLibrary();
        Path data = tmp.resolve("data");
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults());
                // this JVM hosts H2's mixed mode, so the children come and go without moving the database
                LocalStore host = LocalStore.openFile(data)) {
            Path holderOut = tmp.resolve("holder.out");
            Process holder = JavaProcess.start(
                    LeaseHolderMain.class, holderOut, data.toString(), "alice", "course_sync", "6000");
            try {
                String[] held = awaitLine(holderOut, "HELD ", holder).split(" ");
                assertThat(held[1]).isEqualTo("1");
                String holderOwner = held[2];
                assertShimShiftsTheHolderStart(lib, holder.pid());
                for (String shift : List.of("5", "-5")) {
                    CliProcess sync = CliProcess.start(
                            tmp,
                            "sync-shift" + shift,
                            Map.of("BTIME_SHIFT", shift, "LD_PRELOAD", lib.toString()),
                            List.of(
                                    "sync",
                                    "--json",
                                    "--user",
                                    "alice",
                                    "--scope",
                                    "course_sync",
                                    "--server",
                                    server.baseUrl(),
                                    "--token",
                                    server.tokenFor("alice"),
                                    "--data-dir",
                                    data.toString()));
                    CliProcess.Result r = sync.await(120);
                    assertThat(r.code()).as(r.both()).isEqualTo(SyncCommand.JOINED);
                    JsonNode json = new ObjectMapper().readTree(r.out());
                    assertThat(json.path("result").asText()).as(r.both()).isEqualTo("joined");
                    assertThat(json.path("epoch").asLong()).as(r.both()).isEqualTo(1);
                    assertThat(json.path("owner").asText()).as(r.both()).isEqualTo(holderOwner);
                    assertThat(r.err()).doesNotContain("provably dead");
                }
                assertThat(holder.isAlive()).as(Files.readString(holderOut)).isTrue();
                LeaseRecord row = host.leases().read(KEY).orElseThrow();
                assertThat(row.epoch()).isEqualTo(1);
                assertThat(row.owner().orElseThrow().asString()).isEqualTo(holderOwner);
                assertThat(row.heartbeat()).as("the holder kept renewing").isGreaterThan(1);
                assertThat(server.stats().requests())
                        .as("no run reached the server")
                        .isZero();
            } finally {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * CLI {@code sync}'s watch of a holder that looks stopped must not trust the holder's wall clock.
     * A holder whose clock runs 3 h ahead (the wall clock aid) and that stopped renewing (SIGSTOP,
     * alive, so not provably dead) recorded an expiry 3 h in the future: {@code sync} joined it at
     * once, every time, for 3 h. Now it watches the heartbeat and takes the key over after one TTL.
     */
    @Test
    void aSyncTakesOverAFrozenHolderWhoseClockRunsHoursAheadAfterOneTtl() throws Exception {
        Path data = tmp.resolve("data-ahead");
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults());
                LocalStore host = LocalStore.openFile(data)) {
            Path holderOut = tmp.resolve("holder-ahead.out");
            Process holder = JavaProcess.start(
                    LeaseHolderMain.class,
                    holderOut,
                    NativeAids.wallClockShifted(3),
                    data.toString(),
                    "alice",
                    "course_sync",
                    "4000");
            try {
                awaitLine(holderOut, "HELD 1 ", holder);
                assertThat(host.leases().read(KEY).orElseThrow().renewedAt())
                        .as("the holder's clock runs ahead")
                        .isAfter(java.time.Instant.now().plus(java.time.Duration.ofHours(2)));
                signal("STOP", holder);
                CliProcess.Result r = sync(server, data, "sync-ahead");
                assertThat(r.code()).as(r.both()).isZero();
                assertThat(new ObjectMapper().readTree(r.out()).path("result").asText())
                        .as(r.both())
                        .isEqualTo("succeeded");
                assertThat(host.leases().read(KEY).orElseThrow().epoch()).isEqualTo(2);
            } finally {
                signal("CONT", holder);
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A renewing holder whose clock runs 3 h behind recorded an expiry 3 h ago: it is still joined, not taken. */
    @Test
    void aSyncJoinsARenewingHolderWhoseClockRunsHoursBehind() throws Exception {
        Path data = tmp.resolve("data-behind");
        try (ReferenceServer server = ReferenceServer.start(ServerConfig.defaults());
                LocalStore host = LocalStore.openFile(data)) {
            Path holderOut = tmp.resolve("holder-behind.out");
            Process holder = JavaProcess.start(
                    LeaseHolderMain.class,
                    holderOut,
                    NativeAids.wallClockShifted(-3),
                    data.toString(),
                    "alice",
                    "course_sync",
                    "4000");
            try {
                String owner = awaitLine(holderOut, "HELD 1 ", holder).split(" ")[2];
                assertThat(host.leases().read(KEY).orElseThrow().renewedAt())
                        .as("the holder's clock runs behind")
                        .isBefore(java.time.Instant.now().minus(java.time.Duration.ofHours(2)));
                CliProcess.Result r = sync(server, data, "sync-behind");
                assertThat(r.code()).as(r.both()).isEqualTo(SyncCommand.JOINED);
                JsonNode json = new ObjectMapper().readTree(r.out());
                assertThat(json.path("epoch").asLong()).as(r.both()).isEqualTo(1);
                assertThat(json.path("owner").asText()).as(r.both()).isEqualTo(owner);
                assertThat(host.leases().read(KEY).orElseThrow().epoch()).isEqualTo(1);
                assertThat(holder.isAlive()).isTrue();
            } finally {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private CliProcess.Result sync(ReferenceServer server, Path data, String name) throws Exception {
        return CliProcess.start(
                        tmp,
                        name,
                        List.of(
                                "sync",
                                "--json",
                                "--user",
                                "alice",
                                "--scope",
                                "course_sync",
                                "--server",
                                server.baseUrl(),
                                "--token",
                                server.tokenFor("alice"),
                                "--data-dir",
                                data.toString()))
                .await(120);
    }

    private static void signal(String name, Process p) throws Exception {
        new ProcessBuilder("/bin/sh", "-c", "kill -" + name + " " + p.pid())
                .start()
                .waitFor(10, TimeUnit.SECONDS);
    }

    /** The fault is real: a process with the aid sees the holder's ProcessHandle start 5 s later than one without. */
    private void assertShimShiftsTheHolderStart(Path lib, long pid) throws Exception {
        long plain = startInstant(pid, Map.of(), "plain");
        long shifted = startInstant(pid, Map.of("BTIME_SHIFT", "5", "LD_PRELOAD", lib.toString()), "shifted");
        assertThat(shifted - plain).as("btime shift seen through ProcessHandle").isBetween(4_000L, 6_000L);
    }

    private long startInstant(long pid, Map<String, String> env, String name) throws Exception {
        Path out = tmp.resolve("start-" + name + ".out");
        Process p = JavaProcess.start(StartInstantMain.class, out, env, Long.toString(pid));
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = Files.readString(out);
        assertThat(p.exitValue()).as(text).isZero();
        return Long.parseLong(text.lines()
                .filter(l -> l.startsWith("START "))
                .findFirst()
                .orElseThrow()
                .substring(6)
                .trim());
    }

    private static String awaitLine(Path out, String prefix, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(out)) {
                for (String l : Files.readAllLines(out)) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                }
            }
            assertThat(p.isAlive())
                    .as("child exited: " + (Files.exists(out) ? Files.readString(out) : ""))
                    .isTrue();
            Thread.sleep(50);
        }
        throw new AssertionError("no '" + prefix + "' line within 60 s: " + Files.readString(out));
    }
}
