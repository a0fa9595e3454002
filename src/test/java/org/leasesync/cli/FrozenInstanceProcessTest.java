package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushStatus;
import org.leasesync.sync.SyncRemote;
import org.leasesync.sync.SyncSettings;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;

/**
 * Two real {@code leasesync serve} processes on one PostgreSQL database, the first stopped with
 * SIGSTOP (it accepts TCP connections in the kernel and never answers): syncs go on to the second
 * instance for pulls and push-status queries, and a push the frozen instance swallowed is settled by
 * asking the second instance before it is sent again — applied exactly once, also after the frozen
 * instance is continued and handles the request it had buffered.
 */
@Timeout(240)
@ProcessTest
@PostgresTest
class FrozenInstanceProcessTest {

    static final TaskKey KEY = TaskKey.of("alice", "message_sync");
    static final ObjectMapper JSON = new ObjectMapper();
    static final OkHttpClient HTTP = new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .callTimeout(Duration.ofSeconds(20))
            .build();
    static final HttpSettings TIMEOUTS =
            new HttpSettings(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(10));
    static final SyncSettings FAST_CONFIRM = new SyncSettings(100, 10, 3, Duration.ofMillis(50), Duration.ofHours(24));

    @TempDir
    Path dir;

    final List<Process> processes = new ArrayList<>();

    record Started(String url, String alice, String admin) {}

    @AfterEach
    void stop() throws Exception {
        for (Process p : processes) {
            signal("CONT", p);
            p.destroyForcibly();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    static void signal(String name, Process p) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid()))
                .redirectErrorStream(true)
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void readsGoToTheHealthyInstanceAndASwallowedPushIsSettledThereAndAppliedOnce() throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        Started a = start(db, 0);
        Started b = start(db, 1);
        Process frozen = processes.get(0);
        String servers = a.url() + "," + b.url();
        try (LocalStore store = LocalStore.openInMemory()) {
            try (ClientStack client = new ClientStack(
                    store, servers, Map.of("alice", a.alice()), TimeSource.system(), FAST_CONFIRM, TIMEOUTS)) {
                assertThat(client.sync(KEY, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);

                signal("STOP", frozen);
                try {
                    String edit = client.edits.addEdit(KEY, "while-frozen", "{\"x\":1}", false);
                    RunResult r = client.sync(KEY, TaskSource.MANUAL);
                    assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
                    assertThat(client.remote.currentServer().toString()).isEqualTo(b.url() + "/");
                    assertThat(client.remote
                                    .pushStatus(KEY, "never-used", "run-x")
                                    .state())
                            .isEqualTo(PushStatus.State.UNKNOWN);
                    assertThat(applied(b, edit)).isEqualTo(1);
                } finally {
                    signal("CONT", frozen);
                }
            }

            // A fresh client starts at the first instance again; it freezes right before the push.
            AtomicBoolean freezeBeforePush = new AtomicBoolean(true);
            try (ClientStack client = new ClientStack(
                    store,
                    servers,
                    Map.of("alice", a.alice()),
                    TimeSource.system(),
                    FAST_CONFIRM,
                    TIMEOUTS,
                    remote -> freezingBeforeFirstPush(remote, frozen, freezeBeforePush))) {
                String edit = client.edits.addEdit(KEY, "swallowed", "{\"x\":2}", false);
                try {
                    RunResult r = client.sync(KEY, TaskSource.MANUAL);
                    assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
                    assertThat(freezeBeforePush.get())
                            .as("the push went to the frozen instance first")
                            .isFalse();
                    assertThat(client.edits.outbox(KEY)).isEmpty();
                    assertThat(applied(b, edit)).isEqualTo(1);
                } finally {
                    signal("CONT", frozen);
                }
                // the continued instance handles the push it had buffered: a replay, not a second application
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (pushes(a) < 3 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(applied(a, edit)).isEqualTo(1);
                assertThat(applied(b, edit)).isEqualTo(1);
            }
        }
    }

    /** Stops the first instance right before the run's first push is sent to it. */
    static SyncRemote freezingBeforeFirstPush(SyncRemote remote, Process frozen, AtomicBoolean armed) {
        return new SyncRemote() {
            @Override
            public PullPage pull(
                    TaskKey key,
                    Optional<String> cursor,
                    Optional<String> pushedPosition,
                    int limit,
                    long fencingToken,
                    String runId) {
                return remote.pull(key, cursor, pushedPosition, limit, fencingToken, runId);
            }

            @Override
            public PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId) {
                if (armed.compareAndSet(true, false)) {
                    try {
                        signal("STOP", frozen);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                return remote.push(key, batch, fencingToken, runId);
            }

            @Override
            public PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
                return remote.pushStatus(key, idempotencyKey, runId);
            }
        };
    }

    /** How often the cluster applied {@code changeId} for the first time, as an instance reports it. */
    static int applied(Started s, String changeId) throws Exception {
        JsonNode per = stats(s).path("appliedByChangeId").path(KEY.asString());
        return per.path(changeId).asInt(0);
    }

    static int pushes(Started s) throws Exception {
        return stats(s).path("pushes").asInt();
    }

    static JsonNode stats(Started s) throws Exception {
        try (Response r = HTTP.newCall(new Request.Builder()
                        .url(s.url() + "/v1/admin/stats")
                        .header("Authorization", "Bearer " + s.admin())
                        .build())
                .execute()) {
            return JSON.readTree(r.body().string());
        }
    }

    Started start(Postgres.Db db, int i) throws Exception {
        Path log = dir.resolve("serve-" + i + ".log");
        Process p = JavaProcess.start(
                Launcher.class,
                log,
                db.env(),
                "serve",
                "--port",
                "0",
                "--seed",
                "demo",
                "--db",
                db.jdbcUrl(),
                "--db-pool-size",
                "3");
        processes.add(p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                Map<String, String> found = new HashMap<>();
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith("listening on ")) {
                        found.put(
                                "url", line.substring("listening on ".length()).trim());
                    } else if (line.startsWith("token alice ")) {
                        found.put(
                                "alice", line.substring("token alice ".length()).trim());
                    } else if (line.startsWith("token admin ")) {
                        found.put(
                                "admin", line.substring("token admin ".length()).trim());
                    }
                }
                if (found.size() == 3) {
                    return new Started(found.get("url"), found.get("alice"), found.get("admin"));
                }
            }
            assertThat(p.isAlive())
                    .as("server process alive; log:\n" + (Files.exists(log) ? Files.readString(log) : ""))
                    .isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the server did not start within 90 s; see " + log);
    }
}
