package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Racing {@code leasesync sync} processes for one key (10 s TTL, a slow server so that they join
 * each other), round after round on one data directory: each process's trigger is recorded at most
 * once in the whole history — no trigger id twice, never more trigger rows than processes, and every
 * row carries its id.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@ProcessTest
class RacingSyncTriggersProcessTest {

    static final int ROUNDS = 6;
    static final int PROCESSES = 4;

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    ReferenceServer server;

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void eachRacingTriggerIsRecordedOnce() throws Exception {
        Path data = tmp.resolve("data");
        server.faults().setLatency(Duration.ofMillis(1500));
        for (int round = 0; round < ROUNDS; round++) {
            List<Process> procs = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                procs.add(JavaProcess.start(
                        Launcher.class,
                        tmp.resolve("r" + round + "p" + i + ".out"),
                        "sync",
                        "--user",
                        "alice",
                        "--scope",
                        "course_sync",
                        "--server",
                        server.baseUrl(),
                        "--token",
                        server.tokenFor("alice"),
                        "--data-dir",
                        data.toString(),
                        "--lease-ttl",
                        "10s",
                        "--call-timeout",
                        "8s"));
            }
            for (int i = 0; i < PROCESSES; i++) {
                String name = "r" + round + "p" + i + ".out";
                assertThat(procs.get(i).waitFor(180, TimeUnit.SECONDS)).as(name).isTrue();
                assertThat(procs.get(i).exitValue())
                        .as("%s: %s", name, Files.readString(tmp.resolve(name)))
                        .isIn(0, 3); // ran, or joined a running run
            }
            try (LocalStore store = LocalStore.openFile(data)) {
                List<String> ids = triggerIds(store);
                assertThat(ids)
                        .as("round %d: no trigger twice", round)
                        .doesNotHaveDuplicates()
                        .doesNotContainNull();
                assertThat(ids)
                        .as("round %d: at most one record per process", round)
                        .hasSizeLessThanOrEqualTo((round + 1) * PROCESSES);
            }
        }
    }

    private static List<String> triggerIds(LocalStore store) {
        return store.database().query("trigger ids", c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT trigger_id FROM run_trigger");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        });
    }
}
