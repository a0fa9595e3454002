package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.client.ClientConfig;
import org.leasesync.client.ClientRuntime;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * invariant 3, time: docs/architecture.md and 4 with real processes: a {@code leasesync sync} frozen with
 * {@code SIGSTOP} in the middle of its run for longer than the TTL (a laptop lid, a debugger, a
 * swapped-out process) is taken over by another process; when it wakes it learns it lost the lease
 * before it writes anything, and the server accepts nothing from it after the successor's first
 * request. The chaos harness does the same at random; this is the fixed case.
 */
@ProcessTest
class FrozenHolderProcessTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");
    static final Duration TTL = Duration.ofSeconds(2);

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void aFrozenRunWakesToALostLeaseAndTheServerRefusesItsLateRequests() throws Exception {
        Path data = tmp.resolve("data");
        try (ReferenceServer server =
                        ReferenceServer.start(ServerConfig.defaults().withAudit(true));
                // This JVM opens the database first, so it hosts H2's mixed mode: freezing the victim
                // must not freeze the database for everyone else (a frozen host would; see reliability.md).
                LocalStore host = LocalStore.openFile(data)) {
            JdbcLocalEdits edits = new JdbcLocalEdits(host.database(), TimeSource.system());
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(edits.addEdit(ALICE, "frozen-" + i, "{\"n\":" + i + "}", false));
            }
            server.faults().setLatency(Duration.ofMillis(700));
            Process victim = JavaProcess.start(
                    Launcher.class,
                    tmp.resolve("victim.out"),
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
                    "2s",
                    "--call-timeout",
                    "1500ms");
            try {
                awaitFirstRequestOf(server, victim);
                signal("STOP", victim); // frozen in the middle of its pull
                try (ClientRuntime successor = ClientRuntime.open(new ClientConfig(
                        data,
                        server.baseUrl(),
                        Map.of("alice", server.tokenFor("alice")),
                        TTL,
                        new HttpSettings(Duration.ofSeconds(1), Duration.ofMillis(1500), Duration.ofMillis(1500)),
                        SyncSettings.DEFAULT,
                        RetryPolicy.NONE,
                        TimeSource.system()))) {
                    RunResult result = takeOver(successor);
                    assertThat(result.status()).as(result.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
                }
                signal("CONT", victim);
                assertThat(victim.waitFor(60, TimeUnit.SECONDS)).isTrue();
                String out = Files.readString(tmp.resolve("victim.out"));
                assertThat(victim.exitValue()).as(out).isEqualTo(1);
                assertThat(out).containsAnyOf("lease expired", "taken over", "newer fencing token");
            } finally {
                signal("CONT", victim);
                victim.destroyForcibly();
            }
            for (String id : ids) {
                assertThat(server.stats().appliedIn("alice", "course_sync"))
                        .as(id)
                        .containsEntry(id, 1);
            }
            assertThat(edits.outbox(ALICE)).isEmpty();
            long successorFirst = -1;
            for (JsonNode row : audit(server)) {
                long token = row.path("fencingToken").asLong(0);
                if (token >= 2 && successorFirst < 0) {
                    successorFirst = row.path("seq").asLong();
                }
                if (successorFirst >= 0 && token == 1) {
                    assertThat(row.path("status").asInt())
                            .as("victim's late request " + row)
                            .isGreaterThanOrEqualTo(400);
                }
            }
            assertThat(successorFirst).as("the successor reached the server").isPositive();
        }
    }

    /** Triggers the key until this process is granted it (after one TTL of an unchanged heartbeat). */
    private static RunResult takeOver(ClientRuntime rt) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            SubmitResult r = rt.coordinator().submit(TriggerRequest.of(ALICE, TaskSource.MANUAL));
            if (r instanceof SubmitResult.Started s) {
                return s.handle().completion().get(60, TimeUnit.SECONDS);
            }
            assertThat(r).isInstanceOf(SubmitResult.Joined.class); // the frozen holder still looks alive
            Thread.sleep(200);
        }
        throw new AssertionError("no takeover within 30 s");
    }

    private static void awaitFirstRequestOf(ReferenceServer server, Process victim) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.stats().requests() == 0) {
            assertThat(victim.isAlive()).isTrue();
            assertThat(System.nanoTime())
                    .as("the victim never reached the server")
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static void signal(String name, Process p) throws Exception {
        new ProcessBuilder("/bin/sh", "-c", "kill -" + name + " " + p.pid())
                .start()
                .waitFor(10, TimeUnit.SECONDS);
    }

    private static List<JsonNode> audit(ReferenceServer server) throws Exception {
        OkHttpClient http = new OkHttpClient();
        Request req = new Request.Builder()
                .url(server.baseUrl() + "/v1/admin/audit?limit=10000")
                .header("Authorization", "Bearer " + server.adminToken())
                .build();
        try (Response r = http.newCall(req).execute()) {
            List<JsonNode> rows = new ArrayList<>();
            new ObjectMapper().readTree(r.body().string()).path("entries").forEach(rows::add);
            return rows;
        }
    }
}
