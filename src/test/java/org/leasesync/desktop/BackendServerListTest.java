package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.remote.ServerUrls;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;

/** The window's runtime ({@link Backend}) on a list of server URLs, against the real reference server. */
class BackendServerListTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    @TempDir
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
    void theWindowsRuntimeSyncsThroughTheSecondUrlAndAPushWhoseAnswerIsLostIsAppliedOnce() throws Exception {
        String dead;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = "http://127.0.0.1:" + s.getLocalPort();
        }
        ServerUrls servers =
                ServerUrls.parse(dead + ",http://localhost:" + server.port() + ",http://127.0.0.1:" + server.port());
        Backend.AppSettings settings = new Backend.AppSettings(
                tmp.resolve("data"),
                Optional.of(servers),
                Optional.of("alice"),
                Optional.of(server.tokenFor("alice")),
                Duration.ofSeconds(60),
                new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20)),
                Duration.ofMinutes(5),
                Duration.ofMinutes(1),
                RetryPolicy.NONE,
                TimeSource.system());

        try (Backend backend = Backend.start(settings)) {
            String changeId = backend.runtime().edits().addEdit(ALICE, "course-9", "{\"title\":\"Topology\"}", false);
            server.faults().setDropAfterApply(1);

            SubmitResult r = backend.runtime().coordinator().submit(TriggerRequest.of(ALICE, TaskSource.MANUAL));
            assertThat(r).isInstanceOf(SubmitResult.Started.class);
            RunResult result = ((SubmitResult.Started) r).handle().completion().get(60, TimeUnit.SECONDS);

            assertThat(result.status()).as(result.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(server.stats().appliedByChangeId()).isEqualTo(Map.of("alice|course_sync", Map.of(changeId, 1)));
            assertThat(server.stats().pushes()).isEqualTo(1);
            assertThat(backend.runtime().edits().outbox(ALICE)).isEmpty();
            assertThat(backend.servers()).isEqualTo(servers);
            assertThat(new StatusTexts(new Messages(java.util.Locale.UK, java.time.ZoneOffset.UTC))
                            .servers(backend.servers()))
                    .isEqualTo("Servers: " + dead + "/, http://localhost:" + server.port() + "/, http://127.0.0.1:"
                            + server.port() + "/ (the first that answers stays in use)");
        }
    }
}
