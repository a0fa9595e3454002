package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.testing.KeyringSession;
import org.leasesync.testing.SessionsProxy;

/**
 * {@code login}, {@code accounts}, {@code logout} and the commands that use a signed-in account, as
 * real processes: the token in a real GNOME Keyring on a private session bus, or — with no bus — in the
 * owner-only file; a session the server refuses ends {@code sync} with exit 6 keeping the outbox, and
 * the next sync after signing in again pushes it. Against the real reference server behind the §12
 * session layer ({@link SessionsProxy}); once the reference server has {@code /v1/sessions} itself,
 * these should also run against it directly.
 */
class AccountsCliTest {

    static final String PASSWORD = "correct horse battery staple";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    ReferenceServer server;
    SessionsProxy proxy;
    Path data;
    final List<CliProcess.Result> outputs = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        server = ReferenceServer.start(ServerConfig.defaults());
        proxy = new SessionsProxy(server).user("alice", PASSWORD).user("bob", "bobs password 2").start();
        data = tmp.resolve("data");
    }

    @AfterEach
    void tearDown() {
        proxy.close();
        server.close();
    }

    /** Runs {@code leasesync ARGS --data-dir DATA} with {@code stdin}, in {@code env}. */
    CliProcess.Result run(Map<String, String> env, String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--data-dir");
        all.add(data.toString());
        CliProcess p = CliProcess.start(tmp, "run" + outputs.size(), env, all);
        try (OutputStream in = p.process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        CliProcess.Result r = p.await(90);
        outputs.add(r);
        return r;
    }

    /** No session bus here: DBUS_SESSION_BUS_ADDRESS blank and an empty XDG_RUNTIME_DIR. */
    Map<String, String> noBus() throws IOException {
        Path runtime = Files.createDirectories(tmp.resolve("no-bus-runtime"));
        return Map.of("DBUS_SESSION_BUS_ADDRESS", "", "XDG_RUNTIME_DIR", runtime.toString());
    }

    @Test
    void loginKeepsTheTokenInTheKeyringTheCommandsUseItAndLogoutEndsTheSession() throws Exception {
        try (KeyringSession keyring = KeyringSession.start(tmp.resolve("keyring"))) {
            Map<String, String> env = keyring.env();
            CliProcess.Result login = run(env, PASSWORD + "\n", "login", "--server", proxy.url(), "--user", "alice",
                    "--password-stdin", "--device-name", "test laptop");
            assertThat(login.code()).as(login.both()).isZero();
            assertThat(login.out()).contains("signed in as alice on " + proxy.url())
                    .contains("kept in the desktop keyring (Secret Service)");
            assertThat(login.err()).as("no fallback notice").doesNotContain("owner-only file");
            assertThat(proxy.signInBodies).singleElement().satisfies(b -> assertThat(b).contains("\"device\":\"test laptop\""));
            String token = proxy.liveSessions().keySet().iterator().next();
            assertThat(keyring.lookup(proxy.url(), "alice")).as("secret-tool finds it").isEqualTo(token);

            CliProcess.Result accounts = run(env, null, "accounts", "--json");
            JsonNode a = JSON.readTree(accounts.out()).path("accounts").get(0);
            assertThat(a.path("user").asText()).isEqualTo("alice");
            assertThat(a.path("tokenKeptIn").asText()).isEqualTo("keyring");
            assertThat(run(env, null, "accounts").out()).contains("alice").contains("desktop keyring");

            // no --server, --user or --token: the signed-in account
            CliProcess.Result edit = run(env, null, "edit", "--scope", "course_sync", "--id", "c1", "--payload",
                    "{\"title\":\"Algebra\"}");
            assertThat(edit.code()).as(edit.both()).isZero();
            CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
            assertThat(sync.code()).as(sync.both()).isZero();
            assertThat(sync.out()).contains("alice|course_sync synced");
            assertThat(proxy.pushes).singleElement().satisfies(b -> assertThat(b).contains("\"c1\""));
            CliProcess.Result status = run(env, null, "status", "--json");
            assertThat(JSON.readTree(status.out()).path("accounts").get(0).path("user").asText()).isEqualTo("alice");

            CliProcess.Result logout = run(env, null, "logout");
            assertThat(logout.code()).as(logout.both()).isZero();
            assertThat(logout.out()).contains("signed out alice on").contains("the server ended the session");
            assertThat(proxy.requests).contains("DELETE /v1/sessions/current auth");
            assertThat(proxy.liveSessions()).isEmpty();
            assertThat(keyring.lookup(proxy.url(), "alice")).as("gone from the keyring").isEmpty();
            assertThat(JSON.readTree(run(env, null, "accounts", "--json").out()).path("accounts").size()).isZero();
            CliProcess.Result after = run(env, null, "sync", "--scope", "course_sync");
            assertThat(after.code()).isEqualTo(2);
            assertThat(after.err()).contains("no account is signed in here");

            assertNoSecretIn(List.of(PASSWORD, token), Map.of());
        }
    }

    @Test
    void withoutASessionBusTheTokenGoesToAnOwnerOnlyFileAndLoginSaysSoOnce() throws Exception {
        Map<String, String> env = noBus();
        CliProcess.Result login = run(env, PASSWORD, "login", "--server", proxy.url(), "--user", "alice",
                "--password-stdin");
        assertThat(login.code()).as(login.both()).isZero();
        Path file = data.resolve("credentials/tokens.json");
        assertThat(login.err()).containsOnlyOnce("no desktop keyring can be used here (no session bus")
                .contains("kept in the owner-only file " + file);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(file.getParent())).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        String token = proxy.liveSessions().keySet().iterator().next();
        JsonNode accounts = JSON.readTree(run(env, null, "accounts", "--json").out()).path("accounts").get(0);
        assertThat(accounts.path("tokenKeptIn").asText()).isEqualTo("file");
        assertThat(accounts.path("tokenFile").asText()).isEqualTo(file.toString());

        CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
        assertThat(sync.code()).as(sync.both()).isZero();
        assertThat(sync.err()).as("said at login, not on every use").doesNotContain("owner-only file");
        // the token is in that one file, by design, and nowhere else
        assertNoSecretIn(List.of(PASSWORD, token), Map.of(token, file));

        assertThat(run(env, null, "logout").code()).isZero();
        assertThat(Files.readString(file)).doesNotContain(token);
    }

    @Test
    void aRefusedSessionEndsSyncWithExit6KeepsTheOutboxAndTheNextSignInPushesIt() throws Exception {
        Map<String, String> env = noBus();
        assertThat(run(env, PASSWORD, "login", "--server", proxy.url(), "--user", "alice", "--password-stdin").code())
                .isZero();
        assertThat(run(env, null, "sync", "--scope", "course_sync").code()).isZero();
        run(env, null, "edit", "--scope", "course_sync", "--id", "c1", "--payload", "{\"title\":\"Algebra\"}");
        run(env, null, "edit", "--scope", "course_sync", "--id", "c2", "--payload", "{\"title\":\"Topology\"}");
        String revoked = proxy.liveSessions().keySet().iterator().next();
        proxy.revokeAll("alice");
        int before = proxy.requests.size();

        CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
        assertThat(sync.code()).as(sync.both()).isEqualTo(SyncCommand.SIGNED_OUT);
        assertThat(sync.out()).contains("alice|course_sync sync stopped: signed out")
                .contains("2 local edits are kept and pushed after you sign in again")
                .contains("sign in again: leasesync login --server " + proxy.url() + " --user alice");
        assertThat(proxy.requests.subList(before, proxy.requests.size())).as("one refused request, no retry")
                .hasSize(1);
        JsonNode status = JSON.readTree(run(env, null, "status", "--json").out());
        assertThat(status.path("lastRuns").get(0).path("status").asText()).isEqualTo("signed_out");
        assertThat(status.path("signedOut").get(0).path("key").asText()).isEqualTo("alice|course_sync");
        assertThat(run(env, null, "status").out()).contains("signed out (the server refused the session");
        assertThat(run(env, null, "outbox", "list", "--scope", "course_sync").out()).contains("c1").contains("c2");
        JsonNode history = JSON.readTree(run(env, null, "history", "--key", "alice|course_sync", "--json").out());
        assertThat(history.toString()).contains("signed_out");

        CliProcess.Result json = run(env, null, "sync", "--scope", "course_sync", "--json");
        assertThat(json.code()).isEqualTo(SyncCommand.SIGNED_OUT);
        assertThat(JSON.readTree(json.out()).path("result").asText()).isEqualTo("signed_out");

        assertThat(run(env, PASSWORD, "login", "--server", proxy.url(), "--user", "alice", "--password-stdin").code())
                .isZero();
        CliProcess.Result again = run(env, null, "sync", "--scope", "course_sync");
        assertThat(again.code()).as(again.both()).isZero();
        assertThat(proxy.pushes).hasSize(1).allSatisfy(b -> assertThat(b).contains("\"c1\"").contains("\"c2\""));
        assertThat(run(env, null, "outbox", "list", "--scope", "course_sync").out()).doesNotContain("c1");
        String fresh = proxy.liveSessions().keySet().iterator().next();
        assertNoSecretIn(List.of(PASSWORD, revoked), Map.of(fresh, data.resolve("credentials/tokens.json")));
    }

    @Test
    void loginFailuresAreSaidInWordsWithTheirOwnExitCodes() throws Exception {
        Map<String, String> env = noBus();
        CliProcess.Result wrong = run(env, "not it", "login", "--server", proxy.url(), "--user", "alice",
                "--password-stdin");
        assertThat(wrong.code()).as(wrong.both()).isEqualTo(LoginCommand.WRONG_PASSWORD);
        assertThat(wrong.err()).contains("leasesync: wrong user name or password for " + proxy.url());

        proxy.lockAfterFailures = 1;
        CliProcess.Result locked = run(env, PASSWORD, "login", "--server", proxy.url(), "--user", "alice",
                "--password-stdin");
        assertThat(locked.code()).as(locked.both()).isEqualTo(LoginCommand.TOO_MANY_ATTEMPTS);
        assertThat(locked.err()).contains("too many failed sign-ins at " + proxy.url() + "; try again in 90s");
        proxy.lockAfterFailures = 0;

        String closed = "http://127.0.0.1:" + freePort() + "/";
        CliProcess.Result unreachable = run(env, PASSWORD, "login", "--server", closed, "--user", "alice",
                "--password-stdin");
        assertThat(unreachable.code()).as(unreachable.both()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot reach the sync server at " + closed);

        Path elsewhere = tmp.resolve("never-created");
        CliProcess.Result clear = CliProcess.start(tmp, "clear", env, List.of("login", "--server",
                "http://sync.example.org:8787", "--user", "alice", "--password-stdin", "--data-dir",
                elsewhere.toString())).await(60);
        assertThat(clear.code()).as(clear.both()).isEqualTo(2);
        assertThat(clear.err()).contains("plain http:// to another machine").contains("--allow-insecure-http");
        assertThat(elsewhere).as("bad input touches nothing").doesNotExist();

        assertThat(proxy.liveSessions()).isEmpty();
        assertThat(data.resolve(org.leasesync.client.AccountsFile.NAME)).doesNotExist();
    }

    @Test
    void withSeveralAccountsUserPicksOneAndTokensGivenForOneRunStillWork() throws Exception {
        Map<String, String> env = noBus();
        run(env, PASSWORD, "login", "--server", proxy.url(), "--user", "alice", "--password-stdin");
        run(env, "bobs password 2", "login", "--server", proxy.url(), "--user", "bob", "--password-stdin");
        CliProcess.Result which = run(env, null, "sync", "--scope", "course_sync");
        assertThat(which.code()).isEqualTo(2);
        assertThat(which.err()).contains("several accounts are signed in (alice on " + proxy.url() + ", bob on "
                + proxy.url() + "): pick one with --user");
        assertThat(run(env, null, "sync", "--scope", "course_sync", "--user", "bob").code()).isZero();
        assertThat(run(env, null, "records", "--scope", "course_sync").code()).isEqualTo(2);

        // a token for one run, from a file or standard input, as scripts do; bob's session token here
        String bobs = proxy.liveSessions().entrySet().stream().filter(e -> e.getValue().equals("bob"))
                .map(Map.Entry::getKey).findFirst().orElseThrow();
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, bobs + "\n");
        CliProcess.Result fromFile = run(env, null, "sync", "--scope", "message_sync", "--server", proxy.url(),
                "--user", "bob", "--token-file", tokenFile.toString());
        assertThat(fromFile.code()).as(fromFile.both()).isZero();
        CliProcess.Result fromStdin = run(env, bobs + "\n", "sync", "--scope", "backup", "--server", proxy.url(),
                "--user", "bob", "--token-stdin");
        assertThat(fromStdin.code()).as(fromStdin.both()).isZero();
        Map<String, String> withEnv = new HashMap<>(env);
        withEnv.put("LEASESYNC_TOKEN", bobs);
        assertThat(run(withEnv, null, "sync", "--scope", "backup", "--server", proxy.url(), "--user", "bob").code())
                .isZero();
        CliProcess.Result noServer = run(env, null, "sync", "--scope", "backup", "--token-file", tokenFile.toString());
        assertThat(noServer.code()).isEqualTo(2);
        assertThat(noServer.err()).contains("needs --server");

        assertThat(run(env, null, "logout").code()).as("which one?").isEqualTo(2);
        assertThat(run(env, null, "logout", "--user", "bob").code()).isZero();
        assertThat(run(env, null, "sync", "--scope", "course_sync").code()).as("alice is the one left").isZero();
    }

    @Test
    void anUntrustedCertificateIsNamedByItsFingerprintAndTheCaFileIsRememberedWithTheAccount() throws Exception {
        Map<String, String> env = noBus();
        org.leasesync.testing.TestCertificate cert = org.leasesync.testing.TestCertificate.make(tmp.resolve("tls"));
        try (SessionsProxy https = new SessionsProxy(server).user("alice", PASSWORD).https(cert.serverSockets()).start()) {
            assertThat(https.url()).startsWith("https://");
            CliProcess.Result refused = run(env, PASSWORD, "login", "--server", https.url(), "--user", "alice",
                    "--password-stdin");
            assertThat(refused.code()).as(refused.both()).isEqualTo(LoginCommand.CERTIFICATE_NOT_TRUSTED);
            assertThat(refused.err()).contains("the certificate of " + https.url() + " is not trusted (SHA-256 "
                    + "fingerprint " + cert.sha256() + ")").contains("--ca-file");
            assertThat(https.signInBodies).as("the password was never sent").isEmpty();

            CliProcess.Result login = run(env, PASSWORD, "login", "--server", https.url(), "--user", "alice",
                    "--password-stdin", "--ca-file", cert.certFile().toString());
            assertThat(login.code()).as(login.both()).isZero();
            CliProcess.Result sync = run(env, null, "sync", "--scope", "course_sync");
            assertThat(sync.code()).as("over https, trusting the remembered CA file: " + sync.both()).isZero();
            assertThat(JSON.readTree(run(env, null, "accounts", "--json").out()).path("accounts").get(0)
                    .path("caFile").asText()).isEqualTo(cert.certFile().toString());
        }
    }

    private static int freePort() throws IOException {
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
        try (Stream<Path> walk = Files.walk(data)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertThat(files).as("the H2 file and the logs are among them")
                .anyMatch(f -> f.toString().endsWith(".mv.db")).anyMatch(f -> f.toString().endsWith(".log"));
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
