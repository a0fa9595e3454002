package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.server.store.SignInLimits;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;

/**
 * Accounts across a cluster of real {@code serve} processes on one PostgreSQL: {@code leasesync
 * users} changes the database while they run and every instance follows at its next request (a
 * new account signs in anywhere, a disabled account's and a revoked session's tokens are refused
 * everywhere); a sign-out on one instance ends the token on the other; and the failed sign-ins of
 * one user are counted for the whole cluster.
 */
@ProcessTest
@PostgresTest
class AccountsClusterProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final OkHttpClient HTTP = new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .callTimeout(Duration.ofSeconds(30))
            .build();

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private int cli;

    @AfterEach
    void stop() throws Exception {
        for (Process p : processes) {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private String serve(Postgres.Db db, String name) throws Exception {
        Path log = dir.resolve(name + ".log");
        Process p = JavaProcess.start(
                Launcher.class, log, db.env(), "serve", "--port", "0", "--db", db.jdbcUrl(), "--db-pool-size", "3");
        processes.add(p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith("listening on ")) {
                        return line.substring("listening on ".length()).trim();
                    }
                }
            }
            assertThat(p.isAlive())
                    .as(Files.exists(log) ? Files.readString(log) : "")
                    .isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("serve did not start: " + Files.readString(log));
    }

    /** {@code leasesync users ARGS...} as a process on the database; returns its exit code and output. */
    private String[] users(Postgres.Db db, String stdin, String... args) throws Exception {
        Path log = dir.resolve("users-" + (++cli) + ".log");
        List<String> all = new ArrayList<>(List.of("users"));
        all.addAll(List.of(args));
        all.addAll(List.of("--db", db.jdbcUrl()));
        Process p = JavaProcess.start(Launcher.class, log, db.env(), all.toArray(String[]::new));
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new String[] {String.valueOf(p.exitValue()), Files.readString(log)};
    }

    private static Response call(Request r) throws Exception {
        return HTTP.newCall(r).execute();
    }

    /** Signs in; returns the status and the body. */
    private static Object[] signIn(String url, String user, String password) throws Exception {
        String body = "{\"user\":\"" + user + "\",\"password\":\"" + password + "\"}";
        try (Response r = call(new Request.Builder()
                .url(url + "/v1/sessions")
                .post(RequestBody.create(body, MediaType.get("application/json")))
                .build())) {
            return new Object[] {r.code(), JSON.readTree(r.body().string()), r.header("Retry-After")};
        }
    }

    private static String token(String url, String user, String password) throws Exception {
        Object[] r = signIn(url, user, password);
        assertThat((int) r[0]).as(r[1].toString()).isEqualTo(201);
        return ((JsonNode) r[1]).get("token").asText();
    }

    private static int pull(String url, String user, String token) throws Exception {
        try (Response r = call(new Request.Builder()
                .url(url + "/v1/users/" + user + "/scopes/backup/changes")
                .header("Authorization", "Bearer " + token)
                .build())) {
            r.body().string();
            return r.code();
        }
    }

    @Test
    void usersChangesAndSignInLimitsHoldOnEveryInstanceAtTheNextRequest() throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        String one = serve(db, "one");
        String two = serve(db, "two");

        String[] add = users(db, "gina's password\n", "add", "gina", "--password-stdin");
        assertThat(add[0]).as(add[1]).isEqualTo("0");
        assertThat(users(db, "pw\n", "add", "hal", "--password-stdin")[0]).isEqualTo("0");
        String[] dup = users(db, "pw\n", "add", "gina", "--password-stdin");
        assertThat(dup[0]).as(dup[1]).isEqualTo("2");

        String ginaOnOne = token(one, "gina", "gina's password");
        assertThat(pull(two, "gina", ginaOnOne))
                .as("a session of one instance is valid on the other")
                .isEqualTo(200);
        String ginaOnTwo = token(two, "gina", "gina's password");

        try (Response r = call(new Request.Builder()
                .url(two + "/v1/sessions/current")
                .header("Authorization", "Bearer " + ginaOnOne)
                .delete()
                .build())) {
            assertThat(r.code()).isEqualTo(204);
        }
        assertThat(pull(one, "gina", ginaOnOne))
                .as("signed out on two, refused on one")
                .isEqualTo(401);
        assertThat(pull(one, "gina", ginaOnTwo)).isEqualTo(200);

        String[] sessions = users(db, null, "sessions", "gina", "--json");
        assertThat(sessions[1]).doesNotContain(ginaOnTwo);
        String revoke = users(db, null, "revoke", "gina")[1];
        assertThat(revoke).contains("revoked 1 session(s) of gina");
        assertThat(pull(one, "gina", ginaOnTwo)).isEqualTo(401);
        assertThat(pull(two, "gina", ginaOnTwo)).isEqualTo(401);

        String again = token(one, "gina", "gina's password");
        assertThat(users(db, null, "disable", "gina")[0]).isEqualTo("0");
        assertThat(pull(one, "gina", again)).isEqualTo(401);
        assertThat(pull(two, "gina", again)).isEqualTo(401);
        assertThat((int) signIn(two, "gina", "gina's password")[0]).isEqualTo(401);
        assertThat(users(db, null, "enable", "gina")[0]).isEqualTo("0");
        assertThat(pull(two, "gina", token(two, "gina", "gina's password"))).isEqualTo(200);

        for (int i = 0; i < SignInLimits.PER_USER; i++) {
            Object[] r = signIn(i % 2 == 0 ? one : two, "hal", "wrong " + i);
            assertThat((int) r[0]).as("failure " + i + ": " + r[1]).isEqualTo(401);
        }
        for (String url : List.of(one, two)) {
            Object[] locked = signIn(url, "hal", "pw");
            assertThat((int) locked[0]).as(url + ": " + locked[1]).isEqualTo(429);
            assertThat(((JsonNode) locked[1]).get("code").asText()).isEqualTo("too_many_attempts");
            assertThat(Long.parseLong((String) locked[2])).isBetween(800L, 900L);
        }
        assertThat(pull(one, "gina", token(one, "gina", "gina's password")))
                .as("other users sign in")
                .isEqualTo(200);
    }
}
