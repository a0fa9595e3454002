package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.KeyringSession;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.ServerApi;
import org.leasesync.testing.TestCertificate;

/**
 * {@code login}, {@code accounts}, {@code logout} and the commands that use a signed-in account, as
 * real processes against a real {@code leasesync serve} on an H2 data dir, whose accounts are made
 * with {@code leasesync users add} (once per class, each test serving a copy): the token in a real GNOME Keyring on a private session bus, or —
 * with no bus — in the owner-only file; a sign-out the server carries out (its own metrics count the
 * {@code DELETE /v1/sessions/current}, and the old token is refused); a session revoked with
 * {@code leasesync users revoke} ends {@code sync} with exit 6 keeping the outbox, and the next sync
 * after signing in again pushes it (read back from the server); HTTPS by {@code serve --tls-cert}.
 * The server's side is read as another device of the user would ({@link ServerApi}). The sign-in
 * limits, which need the server's clock moved, are {@link SignInLockoutTest}.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@DesktopTest
@ProcessTest
class AccountsCliTest {

    static final String PASSWORD = "correct horse battery staple";
    static final String BOBS = "bobs password 2";
    static final ObjectMapper JSON = new ObjectMapper();
    static final ServerApi API = ServerApi.PLAIN;

    @TempDir
    Path tmp;

    ServeOnPort serve;
    final List<ServeOnPort> servers = new ArrayList<>();
    final List<CliProcess.Result> outputs = new ArrayList<>();

    Path data() {
        return tmp.resolve("data");
    }

    Path serverDir() {
        return tmp.resolve("server");
    }

    /** A data dir that {@code users add} made, and that command's results. */
    record Prepared(Path dir, List<CliProcess.Result> adds) {}

    /** The prepared data dirs of this class, by their accounts (the names and passwords). */
    static final Map<Map<String, String>, Prepared> PREPARED = new HashMap<>();

    @TempDir
    static Path classTmp;

    @AfterAll
    static void forgetPrepared() {
        PREPARED.clear();
    }

    /** Copies the files of {@code from} (one level, as a data dir is) into a new {@code to}, with their owner-only modes. */
    static void copyDir(Path from, Path to) throws IOException {
        Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        for (ServeOnPort s : servers) {
            s.close();
        }
    }

    /**
     * A server on {@code dir}, a copy of a data dir where {@code leasesync users add} made each name and
     * password. Each set of accounts is made once per class (a JVM, a new H2 file and an Argon2id hash per
     * account) and copied into each test's {@code dir}; the commands' output joins this test's, so
     * {@link #assertNoSecretIn} reads it too.
     */
    ServeOnPort serverWith(Path dir, Map<String, String> accounts, String... options) throws Exception {
        Prepared p = PREPARED.get(accounts);
        if (p == null) {
            Path made = classTmp.resolve("accounts-" + PREPARED.size());
            List<CliProcess.Result> adds = new ArrayList<>();
            for (Map.Entry<String, String> a : accounts.entrySet()) {
                List<String> args =
                        List.of("users", "add", a.getKey(), "--password-stdin", "--data-dir", made.toString());
                CliProcess.Result add = CliProcess.run(
                        classTmp, made.getFileName() + "-" + adds.size(), Map.of(), a.getValue() + "\n", args, 120);
                assertThat(add.code()).as(add.both()).isZero();
                adds.add(add);
            }
            p = new Prepared(made, adds);
            PREPARED.put(Map.copyOf(accounts), p);
        }
        outputs.addAll(p.adds());
        copyDir(p.dir(), dir);
        List<String> args = new ArrayList<>(List.of("--data-dir", dir.toString()));
        args.addAll(List.of(options));
        ServeOnPort s = ServeOnPort.start(tmp, "serve-" + servers.size(), Map.of(), args.toArray(String[]::new));
        servers.add(s);
        return s;
    }

    /** Runs {@code leasesync users ARGS} with {@code stdin}. */
    CliProcess.Result users(String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("users"));
        all.addAll(List.of(args));
        CliProcess.Result r = CliProcess.run(tmp, "users" + outputs.size(), Map.of(), stdin, all, 120);
        outputs.add(r);
        return r;
    }

    /** Runs {@code leasesync ARGS --data-dir DATA} with {@code stdin}, in {@code env}. */
    CliProcess.Result run(Map<String, String> env, String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--data-dir");
        all.add(data().toString());
        CliProcess.Result r = CliProcess.run(tmp, "run" + outputs.size(), env, stdin, all, 90);
        outputs.add(r);
        return r;
    }

    /** No session bus here: DBUS_SESSION_BUS_ADDRESS blank and an empty XDG_RUNTIME_DIR. */
    Map<String, String> noBus() throws IOException {
        Path runtime = Files.createDirectories(tmp.resolve("no-bus-runtime"));
        return Map.of("DBUS_SESSION_BUS_ADDRESS", "", "XDG_RUNTIME_DIR", runtime.toString());
    }

    /** The token of {@code user} in the owner-only token file, as the client keeps it. */
    String tokenInFile(String user) throws IOException {
        for (JsonNode t : JSON.readTree(
                        data().resolve("credentials/tokens.json").toFile())
                .path("tokens")) {
            if (t.path("user").asText().equals(user)) {
                return t.path("token").asText();
            }
        }
        throw new AssertionError("no token of " + user + " in the token file");
    }

    @Test
    void loginKeepsTheTokenInTheKeyringTheCommandsUseItAndLogoutEndsTheSessionOnTheServer() throws Exception {
        serve = serverWith(serverDir(), Map.of("alice", PASSWORD));
        String url = serve.url();
        try (KeyringSession keyring = KeyringSession.start(tmp.resolve("keyring"))) {
            Map<String, String> env = keyring.env();
            CliProcess.Result login = run(
                    env,
                    PASSWORD + "\n",
                    "login",
                    "--server",
                    url,
                    "--user",
                    "alice",
                    "--password-stdin",
                    "--device-name",
                    "test laptop");
            assertThat(login.code()).as(login.both()).isZero();
            assertThat(login.out())
                    .contains("signed in as alice on " + url)
                    .contains("kept in the desktop keyring (Secret Service)");
            assertThat(login.err()).as("no fallback notice").doesNotContain("owner-only file");
            String token = keyring.lookup(url, "alice");
            assertThat(token).as("secret-tool finds it").hasSize(43);
            assertThat(API.sessionsStatus(url, token))
                    .as("the kept token is a live session")
                    .isEqualTo(200);
            ServerApi.Session phone = API.signIn(url, "alice", PASSWORD, "alice's phone");
            assertThat(API.sessions(phone))
                    .extracting(s -> s.path("device").asText())
                    .containsExactlyInAnyOrder("test laptop", "alice's phone");

            CliProcess.Result accounts = run(env, null, "accounts", "--json");
            JsonNode a = JSON.readTree(accounts.out()).path("accounts").get(0);
            assertThat(a.path("user").asText()).isEqualTo("alice");
            assertThat(a.path("tokenKeptIn").asText()).isEqualTo("keyring");
            assertThat(run(env, null, "accounts").out()).contains("alice").contains("desktop keyring");

            // no --server, --user or --token: the signed-in account
            CliProcess.Result edit = run(
                    env, null, "edit", "--scope", "course_sync", "--id", "c1", "--payload", "{\"title\":\"Algebra\"}");
            assertThat(edit.code()).as(edit.both()).isZero();
            CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
            assertThat(sync.code()).as(sync.both()).isZero();
            assertThat(sync.out()).contains("alice|course_sync synced");
            assertThat(API.records(phone, "course_sync")).containsEntry("c1", "{\"title\":\"Algebra\"}");
            CliProcess.Result status = run(env, null, "status", "--json");
            assertThat(JSON.readTree(status.out())
                            .path("accounts")
                            .get(0)
                            .path("user")
                            .asText())
                    .isEqualTo("alice");

            assertThat(API.requests(url, "sessions", 204)).as("no sign-out yet").isZero();
            CliProcess.Result logout = run(env, null, "logout");
            assertThat(logout.code()).as(logout.both()).isZero();
            assertThat(logout.out()).contains("signed out alice on").contains("the server ended the session");
            assertThat(API.requests(url, "sessions", 204))
                    .as("DELETE /v1/sessions/current reached the server")
                    .isEqualTo(1);
            assertThat(API.sessionsStatus(url, token))
                    .as("the old token is refused")
                    .isEqualTo(401);
            assertThat(API.sessions(phone))
                    .extracting(s -> s.path("device").asText())
                    .containsExactly("alice's phone");
            assertThat(keyring.lookup(url, "alice")).as("gone from the keyring").isEmpty();
            assertThat(JSON.readTree(run(env, null, "accounts", "--json").out())
                            .path("accounts")
                            .size())
                    .isZero();
            CliProcess.Result after = run(env, null, "sync", "--scope", "course_sync");
            assertThat(after.code()).isEqualTo(2);
            assertThat(after.err()).contains("no account is signed in here");

            assertNoSecretIn(List.of(PASSWORD, token, phone.token()), Map.of());
        }
    }

    @Test
    void withoutASessionBusTheTokenGoesToAnOwnerOnlyFileAndLoginSaysSoOnce() throws Exception {
        serve = serverWith(serverDir(), Map.of("alice", PASSWORD));
        Map<String, String> env = noBus();
        CliProcess.Result login =
                run(env, PASSWORD, "login", "--server", serve.url(), "--user", "alice", "--password-stdin");
        assertThat(login.code()).as(login.both()).isZero();
        Path file = data().resolve("credentials/tokens.json");
        assertThat(login.err())
                .containsOnlyOnce("no desktop keyring can be used here (no session bus")
                .contains("kept in the owner-only file " + file);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(file.getParent()))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        String token = tokenInFile("alice");
        assertThat(API.sessionsStatus(serve.url(), token)).isEqualTo(200);
        JsonNode accounts = JSON.readTree(run(env, null, "accounts", "--json").out())
                .path("accounts")
                .get(0);
        assertThat(accounts.path("tokenKeptIn").asText()).isEqualTo("file");
        assertThat(accounts.path("tokenFile").asText()).isEqualTo(file.toString());

        CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
        assertThat(sync.code()).as(sync.both()).isZero();
        assertThat(sync.err()).as("said at login, not on every use").doesNotContain("owner-only file");
        // the token is in that one file, by design, and nowhere else
        assertNoSecretIn(List.of(PASSWORD, token), Map.of(token, file));

        assertThat(run(env, null, "logout").code()).isZero();
        assertThat(Files.readString(file)).doesNotContain(token);
        assertThat(API.sessionsStatus(serve.url(), token)).isEqualTo(401);
    }

    @Test
    void aSessionRevokedWithUsersRevokeEndsSyncWithExit6KeepsTheOutboxAndTheNextSignInPushesIt() throws Exception {
        serve = serverWith(serverDir(), Map.of("alice", PASSWORD));
        String url = serve.url();
        Map<String, String> env = noBus();
        assertThat(run(env, PASSWORD, "login", "--server", url, "--user", "alice", "--password-stdin")
                        .code())
                .isZero();
        assertThat(run(env, null, "sync", "--scope", "course_sync").code()).isZero();
        run(env, null, "edit", "--scope", "course_sync", "--id", "c1", "--payload", "{\"title\":\"Algebra\"}");
        run(env, null, "edit", "--scope", "course_sync", "--id", "c2", "--payload", "{\"title\":\"Topology\"}");
        String revoked = tokenInFile("alice");

        // the operator signs the device out; an H2 data dir is one process's, so the server stops meanwhile
        serve.stop();
        CliProcess.Result revoke =
                users(null, "revoke", "alice", "--data-dir", serverDir().toString());
        assertThat(revoke.code()).as(revoke.both()).isZero();
        assertThat(revoke.out()).isEqualTo("revoked 1 session(s) of alice\n");
        serve.restart();
        assertThat(serve.url()).isEqualTo(url);

        CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
        assertThat(sync.code()).as(sync.both()).isEqualTo(SyncCommand.SIGNED_OUT);
        assertThat(sync.out())
                .contains("alice|course_sync sync stopped: signed out")
                .contains("2 local edits are kept and pushed after you sign in again")
                .contains("sign in again: leasesync login --server " + url + " --user alice");
        assertThat(API.requests(url, "pull", 401))
                .as("the server refused one pull")
                .isEqualTo(1);
        assertThat(API.requests(url, "pull", 200) + API.requests(url, "push", 401) + API.requests(url, "push", 200))
                .as("nothing retried, nothing pushed")
                .isZero();
        JsonNode status = JSON.readTree(run(env, null, "status", "--json").out());
        assertThat(status.path("lastRuns").get(0).path("status").asText()).isEqualTo("signed_out");
        assertThat(status.path("signedOut").get(0).path("key").asText()).isEqualTo("alice|course_sync");
        assertThat(run(env, null, "status").out()).contains("signed out (the server refused the session");
        assertThat(run(env, null, "outbox", "list", "--scope", "course_sync").out())
                .contains("c1")
                .contains("c2");
        JsonNode history = JSON.readTree(run(env, null, "history", "--key", "alice|course_sync", "--json")
                .out());
        assertThat(history.toString()).contains("signed_out");

        CliProcess.Result json = run(env, null, "sync", "--scope", "course_sync", "--json");
        assertThat(json.code()).isEqualTo(SyncCommand.SIGNED_OUT);
        assertThat(JSON.readTree(json.out()).path("result").asText()).isEqualTo("signed_out");

        assertThat(run(env, PASSWORD, "login", "--server", url, "--user", "alice", "--password-stdin")
                        .code())
                .isZero();
        CliProcess.Result again = run(env, null, "sync", "--scope", "course_sync");
        assertThat(again.code()).as(again.both()).isZero();
        assertThat(API.requests(url, "push", 200))
                .as("one push with both kept edits")
                .isEqualTo(1);
        ServerApi.Session phone = API.signIn(url, "alice", PASSWORD, "alice's phone");
        assertThat(API.records(phone, "course_sync"))
                .containsEntry("c1", "{\"title\":\"Algebra\"}")
                .containsEntry("c2", "{\"title\":\"Topology\"}");
        assertThat(run(env, null, "outbox", "list", "--scope", "course_sync").out())
                .doesNotContain("c1");
        assertThat(API.sessionsStatus(url, revoked))
                .as("the revoked token stays refused")
                .isEqualTo(401);
        String fresh = tokenInFile("alice");
        assertNoSecretIn(
                List.of(PASSWORD, revoked, phone.token()), Map.of(fresh, data().resolve("credentials/tokens.json")));
    }

    @Test
    void loginFailuresAreSaidInWordsWithTheirOwnExitCodes() throws Exception {
        serve = serverWith(serverDir(), Map.of("alice", PASSWORD));
        Map<String, String> env = noBus();
        CliProcess.Result wrong =
                run(env, "not it", "login", "--server", serve.url(), "--user", "alice", "--password-stdin");
        assertThat(wrong.code()).as(wrong.both()).isEqualTo(LoginCommand.WRONG_PASSWORD);
        assertThat(wrong.err()).contains("leasesync: wrong user name or password for " + serve.url());
        CliProcess.Result nobody =
                run(env, PASSWORD, "login", "--server", serve.url(), "--user", "mallory", "--password-stdin");
        assertThat(nobody.code())
                .as("the same answer for an account that does not exist")
                .isEqualTo(LoginCommand.WRONG_PASSWORD);
        assertThat(nobody.err()).contains("leasesync: wrong user name or password for " + serve.url());
        assertThat(API.requests(serve.url(), "sessions", 401)).isEqualTo(2);

        String closed = "http://127.0.0.1:" + freePort() + "/";
        CliProcess.Result unreachable =
                run(env, PASSWORD, "login", "--server", closed, "--user", "alice", "--password-stdin");
        assertThat(unreachable.code()).as(unreachable.both()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot reach the sync server at " + closed);

        Path elsewhere = tmp.resolve("never-created");
        CliProcess.Result clear = CliProcess.start(
                        tmp,
                        "clear",
                        env,
                        List.of(
                                "login",
                                "--server",
                                "http://sync.example.org:8787",
                                "--user",
                                "alice",
                                "--password-stdin",
                                "--data-dir",
                                elsewhere.toString()))
                .await(60);
        assertThat(clear.code()).as(clear.both()).isEqualTo(2);
        assertThat(clear.err()).contains("plain http:// to another machine").contains("--allow-insecure-http");
        assertThat(elsewhere).as("bad input touches nothing").doesNotExist();

        assertThat(API.requests(serve.url(), "sessions", 201))
                .as("no session was made")
                .isZero();
        assertThat(data().resolve(org.leasesync.client.AccountsFile.NAME)).doesNotExist();
    }

    @Test
    void withSeveralAccountsUserPicksOneAndTokensGivenForOneRunStillWork() throws Exception {
        Map<String, String> accounts = new LinkedHashMap<>();
        accounts.put("alice", PASSWORD);
        accounts.put("bob", BOBS);
        serve = serverWith(serverDir(), accounts);
        String url = serve.url();
        Map<String, String> env = noBus();
        run(env, PASSWORD, "login", "--server", url, "--user", "alice", "--password-stdin");
        run(env, BOBS, "login", "--server", url, "--user", "bob", "--password-stdin");
        CliProcess.Result which = run(env, null, "sync", "--scope", "course_sync");
        assertThat(which.code()).isEqualTo(2);
        assertThat(which.err())
                .contains("several accounts are signed in (alice on " + url + ", bob on " + url
                        + "): pick one with --user");
        assertThat(run(env, null, "sync", "--scope", "course_sync", "--user", "bob")
                        .code())
                .isZero();
        assertThat(run(env, null, "records", "--scope", "course_sync").code()).isEqualTo(2);

        // a token for one run, from a file or standard input, as scripts do; bob's session token here
        String bobs = tokenInFile("bob");
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, bobs + "\n");
        CliProcess.Result fromFile = run(
                env,
                null,
                "sync",
                "--scope",
                "message_sync",
                "--server",
                url,
                "--user",
                "bob",
                "--token-file",
                tokenFile.toString());
        assertThat(fromFile.code()).as(fromFile.both()).isZero();
        CliProcess.Result fromStdin =
                run(env, bobs + "\n", "sync", "--scope", "backup", "--server", url, "--user", "bob", "--token-stdin");
        assertThat(fromStdin.code()).as(fromStdin.both()).isZero();
        Map<String, String> withEnv = new HashMap<>(env);
        withEnv.put("LEASESYNC_TOKEN", bobs);
        assertThat(run(withEnv, null, "sync", "--scope", "backup", "--server", url, "--user", "bob")
                        .code())
                .isZero();
        CliProcess.Result noServer = run(env, null, "sync", "--scope", "backup", "--token-file", tokenFile.toString());
        assertThat(noServer.code()).isEqualTo(2);
        assertThat(noServer.err()).contains("needs --server");

        assertThat(run(env, null, "logout").code()).as("which one?").isEqualTo(2);
        assertThat(run(env, null, "logout", "--user", "bob").code()).isZero();
        assertThat(API.sessionsStatus(url, bobs)).isEqualTo(401);
        assertThat(run(env, null, "sync", "--scope", "course_sync").code())
                .as("alice is the one left")
                .isZero();
    }

    @Test
    void overHttpsByServeAnUntrustedCertificateIsNamedByItsFingerprintAndTheCaFileIsRemembered() throws Exception {
        TestCertificate cert = TestCertificate.make(tmp.resolve("tls"));
        ServerApi api = ServerApi.trusting(cert.certificate());
        serve = serverWith(
                serverDir(),
                Map.of("alice", PASSWORD),
                "--tls-cert",
                cert.certFile().toString(),
                "--tls-key",
                cert.keyFile().toString());
        String url = serve.url();
        assertThat(url).startsWith("https://127.0.0.1:");
        Map<String, String> env = noBus();
        CliProcess.Result refused = run(env, PASSWORD, "login", "--server", url, "--user", "alice", "--password-stdin");
        assertThat(refused.code()).as(refused.both()).isEqualTo(LoginCommand.CERTIFICATE_NOT_TRUSTED);
        assertThat(refused.err())
                .contains("the certificate of " + url + " is not trusted (SHA-256 " + "fingerprint " + cert.sha256()
                        + ")")
                .contains("--ca-file");
        assertThat(api.requests(url, "sessions", 201) + api.requests(url, "sessions", 401))
                .as("the password was never sent")
                .isZero();

        CliProcess.Result login = run(
                env,
                PASSWORD,
                "login",
                "--server",
                url,
                "--user",
                "alice",
                "--password-stdin",
                "--ca-file",
                cert.certFile().toString());
        assertThat(login.code()).as(login.both()).isZero();
        assertThat(api.requests(url, "sessions", 201)).isEqualTo(1);
        run(env, null, "edit", "--scope", "course_sync", "--id", "c1", "--payload", "{\"title\":\"Algebra\"}");
        CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
        assertThat(sync.code())
                .as("over https, trusting the remembered CA file: " + sync.both())
                .isZero();
        ServerApi.Session phone = api.signIn(url, "alice", PASSWORD, "alice's phone");
        assertThat(api.records(phone, "course_sync")).containsEntry("c1", "{\"title\":\"Algebra\"}");
        assertThat(JSON.readTree(run(env, null, "accounts", "--json").out())
                        .path("accounts")
                        .get(0)
                        .path("caFile")
                        .asText())
                .isEqualTo(cert.certFile().toString());
        assertThat(run(env, null, "logout").out()).contains("the server ended the session");
        assertThat(api.requests(url, "sessions", 204)).isEqualTo(1);
    }

    static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /**
     * Neither secret in any file the client wrote — the data directory with its settings, logs and H2
     * files, read as bytes — nor on any command's stdout or stderr; except a token in the one file
     * {@code allowed} names for it.
     */
    void assertNoSecretIn(List<String> secrets, Map<String, Path> allowed) throws IOException {
        Map<String, Path> found = new LinkedHashMap<>();
        List<String> all = new ArrayList<>(secrets);
        all.addAll(allowed.keySet());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(data())) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertThat(files)
                .as("the H2 file and the logs are among them")
                .anyMatch(f -> f.toString().endsWith(".mv.db"))
                .anyMatch(f -> f.toString().endsWith(".log"));
        for (Path f : files) {
            String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            for (String secret : all) {
                if (text.contains(secret) && !f.equals(allowed.get(secret))) {
                    found.put(secret.equals(PASSWORD) ? "the password" : "a token", f);
                }
            }
        }
        for (CliProcess.Result r : outputs) {
            for (String secret : all) {
                assertThat(r.out() + r.err()).as("a command's output").doesNotContain(secret);
            }
        }
        assertThat(found).as("secrets in files of the data directory").isEmpty();
    }
}
