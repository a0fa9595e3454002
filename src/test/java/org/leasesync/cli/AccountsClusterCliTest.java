package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.Postgres;
import org.leasesync.testing.PostgresTest;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.ServerApi;

/**
 * The sign-in, sync and revoke flow of a real client against two real {@code serve} instances on
 * one PostgreSQL: the account is made with {@code leasesync users add} while both run; the laptop
 * signs in and syncs through instance B; the user's phone, signed in at instance A, reads there what
 * the laptop pushed through B and revokes the laptop's session at A — and B refuses it at the next
 * request ({@code sync} exit 6, the edit kept), with no cache between them; after signing in again
 * the kept edit is read at A. Then {@code leasesync users revoke} ends every session of the user on
 * both instances while they run.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@ProcessTest
@PostgresTest
class AccountsClusterCliTest {

    static final String PASSWORD = "carol's password";
    static final ObjectMapper JSON = new ObjectMapper();
    static final ServerApi API = ServerApi.PLAIN;

    @TempDir
    Path tmp;

    final List<ServeOnPort> servers = new ArrayList<>();
    int runs;

    @AfterEach
    void tearDown() throws InterruptedException {
        for (ServeOnPort s : servers) {
            s.close();
        }
    }

    CliProcess.Result cli(Map<String, String> env, String stdin, String... args) throws Exception {
        return CliProcess.run(tmp, "run" + (runs++), env, stdin, List.of(args), 120);
    }

    /** The laptop's command, on its data dir and without a session bus (the token goes to the file). */
    CliProcess.Result laptop(String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--data-dir", tmp.resolve("laptop").toString()));
        Map<String, String> env = new HashMap<>();
        env.put("DBUS_SESSION_BUS_ADDRESS", "");
        env.put(
                "XDG_RUNTIME_DIR",
                Files.createDirectories(tmp.resolve("no-bus")).toString());
        return cli(env, stdin, all.toArray(String[]::new));
    }

    String laptopToken() throws Exception {
        JsonNode tokens = JSON.readTree(
                        tmp.resolve("laptop/credentials/tokens.json").toFile())
                .path("tokens");
        assertThat(tokens.size()).isEqualTo(1);
        return tokens.get(0).path("token").asText();
    }

    @Test
    void aSessionRevokedOnOneInstanceIsRefusedOnTheOtherAndTheKeptEditArrivesAfterSigningInAgain() throws Exception {
        Postgres.Db db = Postgres.newDatabase();
        for (String name : List.of("a", "b")) {
            servers.add(ServeOnPort.start(tmp, "serve-" + name, db.env(), "--db", db.jdbcUrl(), "--db-pool-size", "3"));
        }
        String a = servers.get(0).url();
        String b = servers.get(1).url();

        CliProcess.Result add =
                cli(db.env(), PASSWORD + "\n", "users", "add", "carol", "--password-stdin", "--db", db.jdbcUrl());
        assertThat(add.code()).as("while both instances run: " + add.both()).isZero();

        CliProcess.Result login = laptop(
                PASSWORD,
                "login",
                "--server",
                b,
                "--user",
                "carol",
                "--password-stdin",
                "--device-name",
                "carol's laptop");
        assertThat(login.code()).as(login.both()).isZero();
        String first = laptopToken();
        laptop(null, "edit", "--scope", "course_sync", "--id", "e1", "--payload", "{\"title\":\"Algebra\"}");
        CliProcess.Result sync = laptop(null, "sync", "--scope", "course_sync");
        assertThat(sync.code()).as(sync.both()).isZero();
        assertThat(API.requests(b, "push", 200)).as("pushed through B").isEqualTo(1);

        ServerApi.Session phone = API.signIn(a, "carol", PASSWORD, "carol's phone");
        assertThat(API.records(phone, "course_sync")).as("read at A").containsEntry("e1", "{\"title\":\"Algebra\"}");
        assertThat(API.revokeOthers(phone)).as("revoked at A").containsExactly("carol's laptop");

        laptop(null, "edit", "--scope", "course_sync", "--id", "e2", "--payload", "{\"title\":\"Topology\"}");
        CliProcess.Result refused = laptop(null, "sync", "--scope", "course_sync");
        assertThat(refused.code()).as(refused.both()).isEqualTo(SyncCommand.SIGNED_OUT);
        assertThat(refused.out())
                .contains("signed out")
                .contains("1 local edit is kept")
                .contains("sign in again: leasesync login --server " + b + " --user carol");
        assertThat(API.requests(b, "pull", 401)).as("refused by B").isEqualTo(1);
        assertThat(API.sessionsStatus(a, first)).isEqualTo(401);
        assertThat(API.sessionsStatus(b, first)).isEqualTo(401);
        assertThat(laptop(null, "outbox", "list", "--scope", "course_sync").out())
                .contains("e2");

        assertThat(laptop(PASSWORD, "login", "--server", b, "--user", "carol", "--password-stdin")
                        .code())
                .isZero();
        CliProcess.Result again = laptop(null, "sync", "--scope", "course_sync");
        assertThat(again.code()).as(again.both()).isZero();
        assertThat(API.records(phone, "course_sync"))
                .as("the kept edit, read at A")
                .containsEntry("e2", "{\"title\":\"Topology\"}");
        String second = laptopToken();

        CliProcess.Result revokeAll = cli(db.env(), null, "users", "revoke", "carol", "--db", db.jdbcUrl());
        assertThat(revokeAll.code()).as(revokeAll.both()).isZero();
        assertThat(revokeAll.out()).isEqualTo("revoked 2 session(s) of carol\n");
        for (String url : List.of(a, b)) {
            assertThat(API.sessionsStatus(url, phone.token())).as(url).isEqualTo(401);
            assertThat(API.sessionsStatus(url, second)).as(url).isEqualTo(401);
        }
        assertThat(laptop(null, "sync", "--scope", "course_sync").code()).isEqualTo(SyncCommand.SIGNED_OUT);
    }
}
