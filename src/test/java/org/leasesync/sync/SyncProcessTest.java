package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

/** Real `leasesync sync` processes: crashes (kill -9) and concurrent starts. */
@ProcessTest
class SyncProcessTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    ReferenceServer server;
    Path data;

    @BeforeEach
    void setUp() {
        server = ReferenceServer.start(ServerConfig.defaults());
        data = tmp.resolve("data");
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    Process sync(String name) throws Exception {
        return JavaProcess.start(
                Launcher.class,
                tmp.resolve(name + ".out"),
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
                data.toString());
    }

    String out(String name) throws Exception {
        return Files.readString(tmp.resolve(name + ".out"));
    }

    List<String> addEdits(int n) {
        List<String> ids = new ArrayList<>();
        try (LocalStore store = LocalStore.openFile(data)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            for (int i = 0; i < n; i++) {
                ids.add(edits.addEdit(ALICE, "rec-" + i, "{\"title\":\"edit " + i + "\"}", false));
            }
        }
        return ids;
    }

    @Test
    void killedDuringPushThenANewSyncResumesFromTheCheckpointAndEveryChangeIsAppliedOnce() throws Exception {
        List<String> ids = addEdits(3);
        server.faults().setDelayAfterApply(Duration.ofSeconds(4));
        Process victim = sync("victim");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.stats().changesApplied() < 3) {
            assertThat(System.nanoTime())
                    .as("push never arrived: %s", out("victim"))
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        victim.destroyForcibly(); // SIGKILL while the server holds the response
        assertThat(victim.waitFor(30, TimeUnit.SECONDS)).isTrue();
        server.faults().setDelayAfterApply(Duration.ZERO);

        Process next = sync("next");
        assertThat(next.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(next.exitValue()).as(out("next")).isZero();
        assertThat(out("next")).contains("alice|course_sync synced");

        for (String id : ids) {
            assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(id, 1);
        }
        assertThat(server.stats().pushes()).isEqualTo(1);
        try (LocalStore store = LocalStore.openFile(data)) {
            assertThat(new JdbcLocalEdits(store.database(), TimeSource.system()).outbox(ALICE))
                    .isEmpty();
            List<RunRecord> runs = store.history().history(ALICE, 10);
            assertThat(runs).hasSize(2);
            assertThat(runs.get(0).status()).contains(RunStatus.SUCCEEDED);
            assertThat(runs.get(0).recovery().orElseThrow()).startsWith("resume");
            assertThat(runs.get(1).status()).contains(RunStatus.FAILED);
            assertThat(runs.get(1).error().orElseThrow()).contains("interrupted");
        }
    }

    @Test
    void tenSyncProcessesAtOnceForOneKeyRunOnceAndTheOthersJoinIt() throws Exception {
        addEdits(1);
        server.faults().setLatency(Duration.ofSeconds(1));
        server.faults().setDelayAfterApply(Duration.ofSeconds(15));
        List<Process> procs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            procs.add(sync("p" + i));
        }
        int succeeded = 0;
        int joined = 0;
        List<String> joinedOutputs = new ArrayList<>();
        String winner = null;
        for (int i = 0; i < 10; i++) {
            Process p = procs.get(i);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String o = out("p" + i);
            if (p.exitValue() == 0) {
                succeeded++;
                winner = o;
            } else {
                assertThat(p.exitValue()).as(o).isEqualTo(3);
                assertThat(o).contains("already syncing alice|course_sync", "this request joined it", "owner ");
                joined++;
                joinedOutputs.add(o);
            }
        }
        assertThat(succeeded).isEqualTo(1);
        assertThat(joined).isEqualTo(9);
        String runId = winner.replaceAll("(?s).*\\(run ([0-9a-f-]+)\\).*", "$1");
        assertThat(joinedOutputs).allSatisfy(o -> assertThat(o).contains(runId));
        assertThat(server.stats().runOverlaps()).isZero();
        try (LocalStore store = LocalStore.openFile(data)) {
            RunRecord r = store.history().run(runId).orElseThrow();
            assertThat(r.mergedSources()).hasSize(9);
            assertThat(store.history().history(ALICE, 20)).hasSize(1);
        }
    }

    @Test
    void manyShortLivedSyncProcessesOfTwoUsersOnAFreshDataDirectoryOnlySucceedOrJoin() throws Exception {
        server.faults().setLatency(Duration.ofSeconds(1));
        List<Process> procs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String user = i % 2 == 0 ? "alice" : "bob";
            procs.add(JavaProcess.start(
                    Launcher.class,
                    tmp.resolve("m" + i + ".out"),
                    "sync",
                    "--user",
                    user,
                    "--scope",
                    "course_sync",
                    "--server",
                    server.baseUrl(),
                    "--token",
                    server.tokenFor(user),
                    "--data-dir",
                    data.toString()));
        }
        for (int i = 0; i < procs.size(); i++) {
            assertThat(procs.get(i).waitFor(150, TimeUnit.SECONDS)).isTrue();
            assertThat(procs.get(i).exitValue()).as(out("m" + i)).isIn(0, 3);
        }
        assertThat(server.stats().runOverlaps()).isZero();
    }

    @Test
    void syncCommandReportsBadInputWithExitCode2AndAnUnreachableServerWithExitCode1() throws Exception {
        Process bad = JavaProcess.start(
                Launcher.class,
                tmp.resolve("bad.out"),
                "sync",
                "--user",
                "alice",
                "--scope",
                "photos",
                "--server",
                server.baseUrl(),
                "--token",
                "x",
                "--data-dir",
                data.toString());
        assertThat(bad.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(bad.exitValue()).isEqualTo(2);
        assertThat(out("bad")).contains("unknown scope 'photos'");
        Process down = JavaProcess.start(
                Launcher.class,
                tmp.resolve("down.out"),
                "sync",
                "--user",
                "alice",
                "--scope",
                "backup",
                "--server",
                "http://127.0.0.1:1",
                "--token",
                "x",
                "--data-dir",
                data.toString());
        assertThat(down.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(down.exitValue()).as(out("down")).isEqualTo(1);
        assertThat(out("down"))
                .contains("sync failed: cannot reach the sync server")
                .doesNotContain("\tat ");
    }
}
