package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.leasesync.testing.ProcessTest;

/**
 * {@code leasesync users} as real processes on an H2 data dir: every subcommand, the refusals with
 * exit code 2 that change nothing, and what happens while a server runs on that directory (H2 is
 * one process's: exit 1 with a message saying so). The PostgreSQL side, where it works while
 * servers run, is {@code AccountsClusterProcessTest}.
 */
@ProcessTest
class UsersCliProcessTest {

    static final OkHttpClient HTTP = new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .callTimeout(30, TimeUnit.SECONDS)
            .build();

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();
    private int runs;

    @AfterEach
    void stop() throws Exception {
        for (Process p : started) {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Runs {@code leasesync users ARGS...} with {@code stdin} on its standard input. */
    CliProcess.Result users(String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("users"));
        all.addAll(List.of(args));
        CliProcess p = CliProcess.start(tmp, "users-" + (++runs), all);
        try (OutputStream in = p.process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        return p.await(120);
    }

    static int signIn(String url, String user, String password) throws Exception {
        String body = "{\"user\":\"" + user + "\",\"password\":\"" + password + "\",\"device\":\"test\"}";
        try (Response r = HTTP.newCall(new Request.Builder()
                        .url(url + "/v1/sessions")
                        .post(RequestBody.create(body, MediaType.get("application/json")))
                        .build())
                .execute()) {
            r.body().string();
            return r.code();
        }
    }

    @Test
    void everySubcommandOnAnH2DataDirAndTheRefusalsThatChangeNothing() throws Exception {
        String dir = tmp.resolve("server").toString();
        CliProcess.Result add = users("first password\n", "add", "alice", "--password-stdin", "--data-dir", dir);
        assertThat(add.code()).as(add.both()).isZero();
        assertThat(add.out()).isEqualTo("added account alice\n");
        assertThat(users("pw\n", "add", "root", "--admin", "--password-stdin", "--data-dir", dir)
                        .code())
                .isZero();

        List<String[]> refused = List.of(
                new String[] {
                    "pw\n",
                    "add",
                    "alice",
                    "--password-stdin",
                    "--data-dir",
                    dir,
                    "an account named 'alice' exists already"
                },
                new String[] {"pw\n", "add", "bad name!", "--password-stdin", "--data-dir", dir, "'bad name!'"},
                new String[] {"pw\n", "add", "x".repeat(65), "--password-stdin", "--data-dir", dir, "1 to 64 characters"
                },
                new String[] {
                    "\n", "add", "bob", "--password-stdin", "--data-dir", dir, "the password must not be empty"
                },
                new String[] {"", "add", "bob", "--password-stdin", "--data-dir", dir, "the password must not be empty"
                },
                new String[] {
                    "pw\n", "add", "bob", "--password", "hunter2", "--data-dir", dir, "--password is not accepted"
                },
                new String[] {"pw\n", "add", "bob", "--data-dir", dir, "needs --password-stdin"},
                new String[] {null, "disable", "nobody", "--data-dir", dir, "there is no account named 'nobody'"},
                new String[] {null, "enable", "nobody", "--data-dir", dir, "there is no account named 'nobody'"},
                new String[] {null, "delete", "nobody", "--data-dir", dir, "there is no account named 'nobody'"},
                new String[] {null, "sessions", "nobody", "--data-dir", dir, "there is no account named 'nobody'"},
                new String[] {
                    null,
                    "revoke",
                    "alice",
                    "no-such-session",
                    "--data-dir",
                    dir,
                    "'alice' has no session no-such-session"
                },
                new String[] {
                    null, "list", "--data-dir", tmp.resolve("typo").toString(), "there is no server database in"
                },
                new String[] {null, "list", "need --data-dir DIR or --db JDBC_URL"});
        for (String[] r : refused) {
            String[] args = java.util.Arrays.copyOfRange(r, 1, r.length - 1);
            CliProcess.Result res = users(r[0], args);
            assertThat(res.code())
                    .as(String.join(" ", args) + "\n" + res.both())
                    .isEqualTo(2);
            assertThat(res.err()).as(String.join(" ", args)).contains(r[r.length - 1].replace("need ", "needs "));
            assertThat(res.err()).doesNotContain("hunter2");
        }
        assertThat(Files.exists(tmp.resolve("typo")))
                .as("a refused command creates nothing")
                .isFalse();

        CliProcess.Result list = users(null, "list", "--data-dir", dir);
        assertThat(list.code()).as(list.both()).isZero();
        assertThat(list.out().lines().toList()).hasSize(3);
        assertThat(list.out()).contains("alice").contains("root").doesNotContain("bob");
        assertThat(list.out()
                        .lines()
                        .filter(l -> l.contains("root"))
                        .findFirst()
                        .orElseThrow())
                .contains("admin");
        CliProcess.Result json = users(null, "list", "--json", "--data-dir", dir);
        assertThat(json.out())
                .contains("\"name\" : \"alice\"")
                .contains("\"hasPassword\" : true")
                .doesNotContain("argon2")
                .doesNotContain("first password");

        assertThat(users(null, "disable", "alice", "--data-dir", dir).out()).startsWith("disabled alice");
        assertThat(users(null, "list", "--data-dir", dir).out()).contains("disabled");
        assertThat(users(null, "enable", "alice", "--data-dir", dir).out()).startsWith("enabled alice");

        // a server on the directory: the account signs in with its password; the CLI waits its turn
        CliProcess serve = CliProcess.start(tmp, "serve", List.of("serve", "--port", "0", "--data-dir", dir));
        started.add(serve.process);
        Path out = tmp.resolve("serve.out");
        SignalStopProcessTest.waitUntil(
                "serve listens", 90, () -> SignalStopProcessTest.read(out).contains("listening on "));
        String url = SignalStopProcessTest.read(out)
                .lines()
                .findFirst()
                .orElseThrow()
                .substring("listening on ".length());
        assertThat(signIn(url, "alice", "first password")).isEqualTo(201);
        assertThat(signIn(url, "alice", "wrong")).isEqualTo(401);
        CliProcess.Result busy = users(null, "list", "--data-dir", dir);
        assertThat(busy.code()).as(busy.both()).isEqualTo(1);
        assertThat(busy.err())
                .contains("another server is using this data dir")
                .contains("stop the server on it, run this command, start the server again");
        serve.process.destroy();
        assertThat(serve.process.waitFor(30, TimeUnit.SECONDS)).isTrue();

        CliProcess.Result sessions = users(null, "sessions", "alice", "--data-dir", dir);
        assertThat(sessions.code()).as(sessions.both()).isZero();
        assertThat(sessions.out()).contains("test").contains("SESSION");
        String id =
                sessions.out().lines().skip(1).findFirst().orElseThrow().trim().split("\\s+")[0];
        assertThat(users(null, "sessions", "alice", "--json", "--data-dir", dir).out())
                .contains("\"sessionId\" : \"" + id);
        assertThat(users(null, "revoke", "alice", id, "--data-dir", dir).out())
                .isEqualTo("revoked session " + id + " of alice\n");
        assertThat(users(null, "revoke", "alice", "--data-dir", dir).out())
                .isEqualTo("revoked 0 session(s) of alice\n");
        assertThat(users(null, "delete", "alice", "--data-dir", dir).out()).startsWith("deleted alice");
        assertThat(users(null, "list", "--data-dir", dir).out()).doesNotContain("alice");
    }
}
