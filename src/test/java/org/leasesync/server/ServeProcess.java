package org.leasesync.server;

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
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.leasesync.Launcher;
import org.leasesync.testing.JavaProcess;

/** A real {@code leasesync serve} child process, with what it printed at start, and admin calls to it. */
final class ServeProcess {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final OkHttpClient HTTP = new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .callTimeout(Duration.ofSeconds(30))
            .build();

    final Process process;
    final Path log;
    final String url;
    final String admin;
    final String alice;
    final String instance;

    private ServeProcess(Process process, Path log, String url, String admin, String alice, String instance) {
        this.process = process;
        this.log = log;
        this.url = url;
        this.admin = admin;
        this.alice = alice;
        this.instance = instance;
    }

    /** Starts {@code serve --port 0 ARGS...} (with the demo seed) and waits (at most 90 s) for its start lines. */
    static ServeProcess start(Path log, Map<String, String> env, List<ServeProcess> started, String... args)
            throws Exception {
        List<String> all = new ArrayList<>(List.of("serve", "--port", "0", "--seed", "demo"));
        all.addAll(List.of(args));
        Process p = JavaProcess.start(Launcher.class, log, env, all.toArray(String[]::new));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                Map<String, String> found = new HashMap<>();
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith("listening on ")) {
                        found.put(
                                "url", line.substring("listening on ".length()).trim());
                    } else if (line.startsWith("token admin ")) {
                        found.put(
                                "admin", line.substring("token admin ".length()).trim());
                    } else if (line.startsWith("token alice ")) {
                        found.put(
                                "alice", line.substring("token alice ".length()).trim());
                    } else if (line.startsWith("serve: instance ")) {
                        found.put(
                                "instance",
                                line.substring("serve: instance ".length()).split(" ")[0]);
                    }
                }
                if (found.size() == 4) {
                    ServeProcess s = new ServeProcess(
                            p, log, found.get("url"), found.get("admin"), found.get("alice"), found.get("instance"));
                    started.add(s);
                    return s;
                }
            }
            if (!p.isAlive()) {
                throw new AssertionError("the server process exited with " + p.exitValue() + "; log:\n"
                        + (Files.exists(log) ? Files.readString(log) : ""));
            }
            Thread.sleep(100);
        }
        p.destroyForcibly();
        throw new AssertionError("the server did not start within 90 s; see " + log);
    }

    JsonNode jobs() throws Exception {
        try (Response r = HTTP.newCall(new Request.Builder()
                        .url(url + "/v1/admin/jobs")
                        .header("Authorization", "Bearer " + admin)
                        .build())
                .execute()) {
            String body = r.body().string();
            assertThat(r.code()).as(body).isEqualTo(200);
            return JSON.readTree(body);
        }
    }

    JsonNode job(String name) throws Exception {
        for (JsonNode j : jobs().get("jobs")) {
            if (j.get("name").asText().equals(name)) {
                return j;
            }
        }
        throw new AssertionError("no job " + name);
    }

    /** {@code POST /v1/admin/jobs/{name}/run}: the status code and body. */
    Map.Entry<Integer, JsonNode> runJob(String name) throws Exception {
        try (Response r = HTTP.newCall(new Request.Builder()
                        .url(url + "/v1/admin/jobs/" + name + "/run")
                        .header("Authorization", "Bearer " + admin)
                        .post(RequestBody.create(new byte[0]))
                        .build())
                .execute()) {
            return Map.entry(r.code(), JSON.readTree(r.body().string()));
        }
    }

    /** A pull of alice's scope with her token; returns the status code. */
    int pullAsAlice(String scope) throws Exception {
        try (Response r = HTTP.newCall(new Request.Builder()
                        .url(url + "/v1/users/alice/scopes/" + scope + "/changes")
                        .header("Authorization", "Bearer " + alice)
                        .build())
                .execute()) {
            r.body().string();
            return r.code();
        }
    }

    /** {@code kill -9}: no shutdown hook runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }

    /** SIGTERM: the server closes cleanly. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
