package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * Found by the chaos harness: the server answered pushes whose commit H2 still held in its 500 ms
 * write delay, so a {@code kill -9} right after the answer lost them — and the client, told they
 * were applied, had already removed them from its outbox. A file-backed server now writes every
 * commit before it answers.
 */
@ProcessTest
class ServerCrashTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final OkHttpClient HTTP =
            new OkHttpClient.Builder().callTimeout(Duration.ofSeconds(20)).build();

    @Test
    void aPushAnsweredJustBeforeAKillMinus9IsStillThereAfterTheRestart(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("server");
        List<String> pushed = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            Path log = dir.resolve("server-" + round + ".log");
            Process server = JavaProcess.start(
                    Launcher.class, log, "serve", "--port", "0", "--seed", "demo", "--data-dir", data.toString());
            try {
                String[] started = awaitStarted(log, server);
                String id = "crash-" + round;
                String body = "{\"changes\":[{\"changeId\":\"c-" + round + "\",\"id\":\"" + id
                        + "\",\"baseVersion\":0,\"deleted\":false,\"payload\":{\"n\":" + round + "}}]}";
                Request push = new Request.Builder()
                        .url(started[0] + "/v1/users/alice/scopes/backup/changes")
                        .header("Authorization", "Bearer " + started[1])
                        .header("Idempotency-Key", "k-" + round)
                        .post(RequestBody.create(body, MediaType.get("application/json")))
                        .build();
                try (Response r = HTTP.newCall(push).execute()) {
                    assertThat(r.code()).isEqualTo(200);
                    assertThat(r.body().string()).contains("\"status\":\"applied\"");
                }
                pushed.add(id);
                server.destroyForcibly(); // kill -9 at once after the answer
                assertThat(server.waitFor(20, TimeUnit.SECONDS)).isTrue();
                server = JavaProcess.start(
                        Launcher.class,
                        dir.resolve("server-" + round + "-after.log"),
                        "serve",
                        "--port",
                        "0",
                        "--seed",
                        "demo",
                        "--data-dir",
                        data.toString());
                String[] restarted = awaitStarted(dir.resolve("server-" + round + "-after.log"), server);
                Request pull = new Request.Builder()
                        .url(restarted[0] + "/v1/users/alice/scopes/backup/changes?limit=1000")
                        .header("Authorization", "Bearer " + restarted[1])
                        .build();
                List<String> ids = new ArrayList<>();
                try (Response r = HTTP.newCall(pull).execute()) {
                    for (JsonNode c : JSON.readTree(r.body().string()).path("changes")) {
                        ids.add(c.path("id").asText());
                    }
                }
                assertThat(ids).as("records after the kill and restart").containsAll(pushed);
            } finally {
                server.destroyForcibly();
                server.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits for the server's start lines; returns its URL and alice's token. */
    private static String[] awaitStarted(Path log, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                String url = null;
                String token = null;
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith("listening on ")) {
                        url = line.substring("listening on ".length()).trim();
                    } else if (line.startsWith("token alice ")) {
                        token = line.substring("token alice ".length()).trim();
                    }
                }
                if (url != null && token != null) {
                    return new String[] {url, token};
                }
            }
            assertThat(p.isAlive()).as("server process alive; log: " + log).isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the server did not start within 60 s; see " + log);
    }
}
