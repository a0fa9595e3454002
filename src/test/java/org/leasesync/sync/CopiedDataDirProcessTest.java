package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Two devices made by copying one data directory ({@code cp -a}), syncing alternately with real
 * {@code leasesync sync} processes against a real server for 20 switches (an edit every fourth): the
 * copy is noticed at its first open and becomes a device of its own, so no run is ever refused, both
 * epochs stay at the number of runs, every edit of either copy reaches the server, and the copy's history says so.
 */
@ProcessTest
class CopiedDataDirProcessTest {

    static final TaskKey KEY = TaskKey.of("alice", "backup");
    // Each switch is a child JVM; 20 alternate the two copies ten times each, enough for a refusal,
    // an epoch jump or a lost edit to show on either side.
    static final int SWITCHES = 20;
    static final int EDIT_EVERY = 4;

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
    void copiesSyncingAlternatelyAreTwoDevicesAndNeverRefuseEachOther() throws Exception {
        Path a = tmp.resolve("A");
        Path b = tmp.resolve("B");
        List<String> changes = new java.util.ArrayList<>();
        changes.add(edit(a, "a-0"));
        sync(a, "first");
        Process cp = new ProcessBuilder("cp", "-a", a.toString(), b.toString())
                .inheritIO()
                .start();
        assertThat(cp.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(cp.exitValue()).isZero();
        changes.add(edit(b, "b-0")); // an unsent edit the copy has before it first syncs

        int syncs = 1;
        for (int turn = 1; turn <= SWITCHES; turn++) {
            Path dir = turn % 2 == 1 ? b : a;
            if (turn % EDIT_EVERY == 0) {
                changes.add(edit(dir, (dir == a ? "a-" : "b-") + turn));
            }
            sync(dir, "turn" + turn);
            syncs++;
        }

        String idA = clientId(a);
        String idB = clientId(b);
        assertThat(idB).isNotEqualTo(idA);
        for (Path dir : List.of(a, b)) {
            try (LocalStore store = LocalStore.openFile(dir)) {
                long epoch = store.leases().read(KEY).orElseThrow().epoch();
                List<RunRecord> runs = store.history().history(KEY, 100);
                assertThat(runs)
                        .as("%s: no run refused", dir)
                        .allSatisfy(r -> assertThat(r.status()).contains(RunStatus.SUCCEEDED));
                // A: its own runs; B: A's first one (copied) and its own: +1 per grant, never a jump
                assertThat(epoch).as("%s epoch", dir).isEqualTo(runs.size()).isLessThanOrEqualTo(syncs);
                assertThat(new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(KEY))
                        .isEmpty();
            }
        }
        try (LocalStore store = LocalStore.openFile(b)) {
            List<RunRecord> runs = store.history().history(KEY, 100);
            RunRecord firstOfCopy = runs.get(runs.size() - 2); // newest first; the last is A's copied run
            assertThat(firstOfCopy.recovery().orElse("")).contains("new device", idA, idB);
            assertThat(runs.get(0).recovery()).isEmpty();
        }
        assertThat(changes).hasSize(2 + SWITCHES / EDIT_EVERY);
        assertThat(server.stats().appliedIn("alice", "backup"))
                .as("every edit of either copy, once")
                .containsAllEntriesOf(changes.stream().collect(java.util.stream.Collectors.toMap(c -> c, c -> 1)));
    }

    private void sync(Path dir, String name) throws Exception {
        Path out = tmp.resolve(name + ".out");
        Process p = JavaProcess.start(
                Launcher.class,
                out,
                "sync",
                "--user",
                "alice",
                "--scope",
                "backup",
                "--server",
                server.baseUrl(),
                "--token",
                server.tokenFor("alice"),
                "--data-dir",
                dir.toString());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(name).isTrue();
        String o = Files.readString(out);
        assertThat(p.exitValue()).as("%s: %s", name, o).isZero();
        assertThat(o).contains("alice|backup synced");
    }

    private static String edit(Path dir, String id) {
        try (LocalStore store = LocalStore.openFile(dir)) {
            return new JdbcLocalEdits(store.database(), TimeSource.system())
                    .addEdit(KEY, id, "{\"by\":\"" + id + "\"}", false);
        }
    }

    private static String clientId(Path dir) {
        try (LocalStore store = LocalStore.openFile(dir)) {
            return new JdbcLocalEdits(store.database(), TimeSource.system()).clientId();
        }
    }
}
