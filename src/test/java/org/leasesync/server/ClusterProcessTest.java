package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.server.demo.DemoData;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;

/**
 * Three {@code leasesync serve --db} processes started at once on one empty PostgreSQL database,
 * with the credentials in their environment: they migrate and seed it once and agree on every
 * token; changes raced through all of them apply once; and a claim left by a process killed with
 * {@code kill -9} stops holding its key as soon as PostgreSQL sees the process gone.
 */
@ProcessTest
@PostgresTest
class ClusterProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json");
    private static final OkHttpClient HTTP = new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .callTimeout(Duration.ofSeconds(30))
            .build();
    private static final int PROCESSES = 3;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(6);

    /** What a started process printed. */
    private record Started(String url, String alice, String admin, String instance) {}

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void processesStartingAtOnceOnAnEmptyDatabaseShareItAndAKilledOnesClaimGoesStale() throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        for (int i = 0; i < PROCESSES; i++) {
            processes.add(JavaProcess.start(
                    Launcher.class,
                    dir.resolve("serve-" + i + ".log"),
                    db.env(),
                    "serve",
                    "--port",
                    "0",
                    "--seed",
                    "demo",
                    "--db",
                    db.jdbcUrl(),
                    "--db-pool-size",
                    "3"));
        }
        List<Started> started = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            started.add(awaitStarted(dir.resolve("serve-" + i + ".log"), processes.get(i)));
        }

        // each process printed sessions of its own; every one is valid on every process
        for (Started s : started) {
            for (Started other : started) {
                assertThat(get(other, "/v1/admin/stats", s.admin()).has("requests"))
                        .isTrue();
                assertThat(get(other, "/v1/users/alice/scopes/backup/changes", s.alice())
                                .has("changes"))
                        .isTrue();
            }
        }
        assertThat(started).extracting(Started::instance).doesNotHaveDuplicates();
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD);
                Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT COUNT(*) FROM flyway_schema_history WHERE success AND version IS NOT NULL"))
                    .as("each migration applied once")
                    .isEqualTo(serverMigrations());
            assertThat(count(s, "SELECT COUNT(*) FROM sync_users"))
                    .as("alice, bob, admin")
                    .isEqualTo(3);
            assertThat(count(s, "SELECT COUNT(*) FROM sync_records WHERE user_id = 'alice'"))
                    .as("seeded once")
                    .isEqualTo(DemoData.ALICE.values().stream()
                            .mapToInt(List::size)
                            .sum());
            assertThat(count(s, "SELECT COUNT(*) FROM sync_users WHERE is_admin"))
                    .isEqualTo(1);
        }

        changesRacedThroughEveryProcessApplyOnce(started);
        aClaimOfAKilledProcessGoesStale(started, db);
    }

    private void changesRacedThroughEveryProcessApplyOnce(List<Started> started) throws Exception {
        String body = "{\"changes\":[{\"changeId\":\"race-1\",\"id\":\"r-1\",\"baseVersion\":0,\"payload\":{}},"
                + "{\"changeId\":\"race-2\",\"id\":\"r-2\",\"baseVersion\":0,\"payload\":{}}]}";
        CountDownLatch go = new CountDownLatch(1);
        List<Future<JsonNode>> pushes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Started s = started.get(i % PROCESSES);
            String key = "race-key-" + i;
            pushes.add(pool.submit(() -> {
                go.await();
                return push(s, "message_sync", key, body);
            }));
        }
        go.countDown();
        Map<String, Integer> firstApplications = new HashMap<>();
        for (Future<JsonNode> f : pushes) {
            for (JsonNode r : f.get(30, TimeUnit.SECONDS).get("results")) {
                assertThat(r.get("status").asText()).isEqualTo("applied");
                if (!r.get("duplicate").asBoolean()) {
                    firstApplications.merge(r.get("changeId").asText(), 1, Integer::sum);
                }
            }
        }
        assertThat(firstApplications).containsOnly(Map.entry("race-1", 1), Map.entry("race-2", 1));
        JsonNode stats = get(started.get(1), "/v1/admin/stats", started.get(1).admin());
        assertThat(stats.get("appliedByChangeId")
                        .get("alice|message_sync")
                        .get("race-1")
                        .asInt())
                .isEqualTo(1);
        // Each process writes its push count to the database within a second (its housekeeping):
        // wait until all six are there, then check that no more were counted.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (stats.get("pushes").asInt() < 6) {
            assertThat(System.nanoTime()).as("pushes counted: " + stats).isLessThan(deadline);
            Thread.sleep(50);
            stats = get(started.get(1), "/v1/admin/stats", started.get(1).admin());
        }
        assertThat(stats.get("pushes").asInt()).isEqualTo(6);
    }

    private void aClaimOfAKilledProcessGoesStale(List<Started> started, Postgres.Db db) throws Exception {
        String body = "{\"changes\":[{\"changeId\":\"k-1\",\"id\":\"k-rec\",\"baseVersion\":0,\"payload\":{}}]}";
        try (Connection blocker = DriverManager.getConnection(db.jdbcUrl(), Postgres.USER, Postgres.PASSWORD)) {
            // Hold alice|backup's scope lock: a push there claims its key, then waits for the lock.
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeQuery(
                                "SELECT last_seq FROM scope_state WHERE user_id = 'alice' AND scope = 'backup' FOR UPDATE")
                        .close();
            }
            CompletableFuture<Void> stuck = CompletableFuture.runAsync(
                    () -> {
                        try {
                            push(started.get(0), "backup", "kill-key", body);
                        } catch (Exception expected) {
                            // the process is killed while the push waits
                        }
                    },
                    pool);
            awaitState(started.get(1), "kill-key", "in_progress", Duration.ofSeconds(20));
            assertThat(post(started.get(2), "backup", "kill-key", body).code()).isEqualTo(409);

            processes.get(0).destroyForcibly(); // kill -9
            assertThat(processes.get(0).waitFor(20, TimeUnit.SECONDS)).isTrue();
            awaitState(started.get(1), "kill-key", "unknown", Duration.ofSeconds(10));
            blocker.rollback();
            stuck.get(30, TimeUnit.SECONDS);
        }
        JsonNode resent = push(started.get(2), "backup", "kill-key", body);
        assertThat(resent.get("results").get(0).get("status").asText()).isEqualTo("applied");
        assertThat(resent.get("results").get(0).get("duplicate").asBoolean()).isFalse();
        assertThat(state(started.get(1), "kill-key")).isEqualTo("completed");
    }

    private static long count(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Response post(Started s, String scope, String key, String body) throws Exception {
        Request r = new Request.Builder()
                .url(s.url() + "/v1/users/alice/scopes/" + scope + "/changes")
                .header("Authorization", "Bearer " + s.alice())
                .header("Idempotency-Key", key)
                .post(RequestBody.create(body, JSON_TYPE))
                .build();
        try (Response response = HTTP.newCall(r).execute()) {
            response.body().string();
            return response;
        }
    }

    private static JsonNode push(Started s, String scope, String key, String body) throws Exception {
        Request r = new Request.Builder()
                .url(s.url() + "/v1/users/alice/scopes/" + scope + "/changes")
                .header("Authorization", "Bearer " + s.alice())
                .header("Idempotency-Key", key)
                .post(RequestBody.create(body, JSON_TYPE))
                .build();
        try (Response response = HTTP.newCall(r).execute()) {
            String text = response.body().string();
            assertThat(response.code()).as(text).isEqualTo(200);
            return JSON.readTree(text);
        }
    }

    private static JsonNode get(Started s, String path, String token) throws Exception {
        try (Response response = HTTP.newCall(new Request.Builder()
                        .url(s.url() + path)
                        .header("Authorization", "Bearer " + token)
                        .build())
                .execute()) {
            return JSON.readTree(response.body().string());
        }
    }

    private static String state(Started s, String key) throws Exception {
        return get(s, "/v1/users/alice/scopes/backup/pushes/" + key, s.alice())
                .get("state")
                .asText();
    }

    private static void awaitState(Started s, String key, String state, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = state(s, key);
            if (last.equals(state)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("key " + key + " did not become " + state + " within " + within + "; last: " + last);
    }

    /** Waits for a process's start lines. */
    private static Started awaitStarted(Path log, Process p) throws Exception {
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
                    } else if (line.startsWith("serve: instance ")) {
                        found.put(
                                "instance",
                                line.substring("serve: instance ".length()).split(" ")[0]);
                    }
                }
                if (found.size() == 4) {
                    return new Started(found.get("url"), found.get("alice"), found.get("admin"), found.get("instance"));
                }
            }
            assertThat(p.isAlive())
                    .as("server process alive; log:\n" + (Files.exists(log) ? Files.readString(log) : ""))
                    .isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the server did not start within 90 s; see " + log);
    }

    /** How many server migrations there are (versions 1 to the latest, as ServerSchemaVersionTest checks). */
    static long serverMigrations() {
        return org.leasesync.server.store.Dialect.LATEST_MIGRATION;
    }
}
