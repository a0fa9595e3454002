package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ProcessTest;

/**
 * {@code leasesync sync --server URL1,URL2,...} as a real process against the real reference
 * server: a first URL nobody listens on, then two URLs that reach the same server.
 */
@ProcessTest
class ServerListSyncProcessTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
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

    static String deadUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    CliProcess.Result sync(String name, String servers) throws Exception {
        return CliProcess.start(
                        tmp,
                        name,
                        List.of(
                                "sync",
                                "--user",
                                "alice",
                                "--scope",
                                "course_sync",
                                "--server",
                                servers,
                                "--token",
                                server.tokenFor("alice"),
                                "--data-dir",
                                data.toString()))
                .await(90);
    }

    @Test
    void aDeadFirstUrlIsSkippedAndAPushWhoseAnswerIsLostIsAppliedOnceAndConfirmedByQuery() throws Exception {
        String changeId;
        try (LocalStore store = LocalStore.openFile(data)) {
            changeId = new JdbcLocalEdits(store.database(), TimeSource.system())
                    .addEdit(ALICE, "course-9", "{\"title\":\"Topology\"}", false);
        }
        server.faults().setDropAfterApply(1);
        String dead = deadUrl();
        String viaIp = "http://127.0.0.1:" + server.port();
        String viaName = "http://localhost:" + server.port();

        CliProcess.Result r = sync("sync", dead + "," + viaIp + "," + viaName);

        assertThat(r.code()).as(r.both()).isZero();
        assertThat(r.out()).contains("alice|course_sync synced");
        assertThat(server.stats().appliedByChangeId())
                .isEqualTo(java.util.Map.of("alice|course_sync", java.util.Map.of(changeId, 1)));
        assertThat(server.stats().pushes())
                .as("the push was confirmed by querying its key, not resent")
                .isEqualTo(1);
        try (LocalStore store = LocalStore.openFile(data)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(store.database(), TimeSource.system());
            assertThat(edits.outbox(ALICE)).isEmpty();
            assertThat(edits.record(ALICE, "course-9")).isPresent();
        }
        assertThat(org.leasesync.testing.LogFiles.read(data))
                .contains("INFO", "failed (REFUSED: connection refused", dead + "/", "trying " + viaIp + "/")
                .contains("now using sync server " + viaIp + "/ (instead of " + dead + "/");
    }

    @Test
    void whenNoUrlAnswersTheSyncFailsNamingEveryUrlTried() throws Exception {
        String a = deadUrl();
        String b = deadUrl();

        CliProcess.Result r = sync("down", a + "," + b);

        assertThat(r.code()).as(r.both()).isEqualTo(1);
        assertThat(r.out()).contains("sync failed: cannot reach the sync server at any of " + a + "/, " + b + "/");
        assertThat(r.err()).doesNotContain("\tat ");
    }
}
