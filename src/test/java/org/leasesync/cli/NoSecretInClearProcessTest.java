package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.ServerApi;

/**
 * No password and no session token in clear in anything the client or the server writes, after the
 * whole life of an account, all as real processes: {@code users add}, {@code serve} on an H2 data
 * dir, {@code login} (no keyring here, so the token file is used), {@code sync}, {@code edit},
 * {@code sync}, the server restarted, {@code sync}, the window signed in as the account, {@code
 * logout}, a second sign-in and sign-out, and the window again without an account (the embedded
 * demo server). Then every file under the test's directory is read as bytes — the client's data dir
 * (H2 files, logs, {@code accounts.json}, {@code credentials/}, {@code settings.json}, the embedded
 * server's directory and {@code embedded-server.json}), the server's data dir (its H2 files), the
 * standard output and error of every command and of the window, the desktop session's logs — for
 * the password and for every session token the test saw (the client's two, and the phone's the test
 * used to read the server), as text, base64 and raw bytes, and finds none. The token file held each
 * client token while it was signed in (no keyring here, by design), and none after {@code logout}.
 * The embedded demo server's tokens are in {@code embedded-server.json} (0600) by design
 * (docs/security.md says why): there and nowhere else.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@DesktopTest
@ProcessTest
class NoSecretInClearProcessTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final ServerApi API = ServerApi.PLAIN;

    @TempDir
    Path tmp;

    ServeOnPort serve;
    DesktopSession desktop;
    final List<Process> windows = new ArrayList<>();
    int runs;

    @AfterEach
    void tearDown() throws InterruptedException {
        for (Process w : windows) {
            w.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (desktop != null) {
            desktop.close();
        }
        if (serve != null) {
            serve.close();
        }
    }

    Path data() {
        return tmp.resolve("data");
    }

    Map<String, String> noBus() throws IOException {
        return Map.of(
                "DBUS_SESSION_BUS_ADDRESS",
                "",
                "XDG_RUNTIME_DIR",
                Files.createDirectories(tmp.resolve("no-bus")).toString());
    }

    CliProcess.Result client(String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--data-dir", data().toString()));
        CliProcess.Result r = CliProcess.run(tmp, "client-" + (runs++), noBus(), stdin, all, 120);
        assertThat(r.code()).as(String.join(" ", args) + "\n" + r.both()).isZero();
        return r;
    }

    String tokenInFile() throws IOException {
        JsonNode t = JSON.readTree(data().resolve("credentials/tokens.json").toFile())
                .path("tokens");
        assertThat(t.size()).isEqualTo(1);
        return t.get(0).path("token").asText();
    }

    /** The window on the data dir until it has done {@code done}, then stopped with SIGTERM (it saves its settings). */
    void runTheWindow(String name, java.util.function.BooleanSupplier done) throws Exception {
        if (desktop == null) {
            desktop = DesktopSession.start(tmp.resolve("desktop"), false);
        }
        Map<String, String> env = new HashMap<>(desktop.env());
        env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        Process w = JavaProcess.start(Launcher.class, tmp.resolve(name + ".log"), env, "--data-dir", data().toString());
        windows.add(w);
        desktop.waitUntil(
                "the window is shown",
                () -> !desktop.visibleWindows("^leasesync$").isEmpty() || !w.isAlive());
        assertThat(w.isAlive()).as(Files.readString(tmp.resolve(name + ".log"))).isTrue();
        desktop.waitUntil(name + " did its part", done);
        w.destroy();
        assertThat(w.waitFor(60, TimeUnit.SECONDS)).as("stopped cleanly").isTrue();
    }

    @Test
    void afterAnAccountsWholeLifeNoFileAndNoOutputHoldsAPasswordOrASessionToken() throws Exception {
        String password = "pw-" + HexFormat.of().formatHex(SecureRandom.getSeed(12));
        Path serverDir = tmp.resolve("server");
        CliProcess.Result add = CliProcess.run(
                tmp,
                "users-add",
                Map.of(),
                password + "\n",
                List.of("users", "add", "erin", "--password-stdin", "--data-dir", serverDir.toString()),
                120);
        assertThat(add.code()).as(add.both()).isZero();
        serve = ServeOnPort.start(tmp, "serve", Map.of(), "--data-dir", serverDir.toString());
        String url = serve.url();
        List<String> tokens = new ArrayList<>();

        client(password, "login", "--server", url, "--user", "erin", "--password-stdin");
        tokens.add(tokenInFile());
        client(null, "accounts");
        client(null, "edit", "--scope", "course_sync", "--id", "c1", "--payload", "{\"title\":\"Algebra\"}");
        client(null, "sync", "--scope", "course_sync");
        client(
                "{\"title\":\"Notes\",\"text\":\"long\"}",
                "edit",
                "--scope",
                "course_sync",
                "--id",
                "notes",
                "--payload-file",
                "-");
        client(null, "sync", "--scope", "course_sync");
        serve.restart();
        client(null, "sync", "--scope", "message_sync");
        client(null, "records", "--scope", "course_sync");
        client(null, "status");
        client(null, "history", "--key", "erin|course_sync");
        ServerApi.Session phone = API.signIn(url, "erin", password, "erin's phone");
        tokens.add(phone.token());
        assertThat(API.records(phone, "course_sync")).containsKeys("c1", "notes");

        long pulls = API.requests(url, "pull", 200);
        runTheWindow("window-signed-in", () -> API.requests(url, "pull", 200) > pulls);

        client(null, "logout");
        assertThat(API.sessionsStatus(url, tokens.get(0))).isEqualTo(401);
        client(password, "login", "--server", url, "--user", "erin", "--password-stdin");
        tokens.add(tokenInFile());
        client(null, "sync", "--scope", "backup");
        client(null, "logout");
        assertThat(API.signOut(phone)).isEqualTo(204);

        // no account now: the window starts the embedded demo server in the data dir
        runTheWindow("window-demo", () -> Files.exists(data().resolve("embedded-server.json")));
        serve.stop();

        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(tmp)) {
            for (Path f : all.filter(Files::isRegularFile).toList()) {
                files.put(tmp.relativize(f).toString(), Files.readAllBytes(f));
            }
        }
        assertThat(files.keySet())
                .as("what was written, among the files read")
                .contains(
                        "data/leasesync.mv.db",
                        "data/accounts.json",
                        "data/credentials/tokens.json",
                        "data/settings.json",
                        "data/embedded-server.json",
                        "data/embedded-server/leasesync-server.mv.db",
                        "server/leasesync-server.mv.db",
                        "users-add.out",
                        "users-add.err",
                        "serve-1.err",
                        "serve-2.out",
                        "client-0.out",
                        "client-0.err",
                        "window-signed-in.log",
                        "window-demo.log");
        assertThat(files.keySet())
                .as("the client's log files, named by day and number")
                .anyMatch(name -> name.matches("data/logs/leasesync\\.\\d{4}-\\d{2}-\\d{2}\\.\\d+\\.log"));

        // The control: what the user wrote is in clear in both H2 files (not encrypted at rest, nor
        // compressed), so a token stored there would be found the same way.
        for (String db : List.of("data/leasesync.mv.db", "server/leasesync-server.mv.db")) {
            assertThat(new String(files.get(db), StandardCharsets.ISO_8859_1))
                    .as(db)
                    .contains("Algebra");
        }

        // Each secret as text and in the encodings a careless write would use: standard base64 of
        // its UTF-8 (a Basic header, a JSON byte array), and for a token also its 32 raw bytes.
        Map<String, byte[]> secrets = new LinkedHashMap<>();
        addForms(secrets, "the password", password.getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < tokens.size(); i++) {
            String what = "session token " + (i + 1);
            addForms(secrets, what, tokens.get(i).getBytes(StandardCharsets.UTF_8));
            secrets.put(what + " (raw bytes)", Base64.getUrlDecoder().decode(tokens.get(i)));
        }
        Map<String, List<String>> found = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            String text = new String(f.getValue(), StandardCharsets.ISO_8859_1);
            secrets.forEach((what, secret) -> {
                if (text.contains(new String(secret, StandardCharsets.ISO_8859_1))) {
                    found.computeIfAbsent(what, k -> new ArrayList<>()).add(f.getKey());
                }
            });
        }
        assertThat(found)
                .as("secrets in clear, by the files that hold them (of %d files)", files.size())
                .isEmpty();

        // The demo: its accounts' tokens are kept for a second window on the same data dir, in that
        // one owner-only file; the embedded server itself holds only their hashes.
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data().resolve("embedded-server.json"))))
                .isEqualTo("rw-------");
        JsonNode demo =
                JSON.readTree(data().resolve("embedded-server.json").toFile()).path("tokens");
        assertThat(demo.size()).isPositive();
        for (JsonNode t : demo) {
            List<String> holders = new ArrayList<>();
            files.forEach((name, bytes) -> {
                if (new String(bytes, StandardCharsets.ISO_8859_1).contains(t.asText())) {
                    holders.add(name);
                }
            });
            assertThat(holders).as("a demo token").containsExactly("data/embedded-server.json");
        }
    }

    private static void addForms(Map<String, byte[]> secrets, String what, byte[] utf8) {
        secrets.put(what, utf8);
        secrets.put(what + " (base64)", Base64.getEncoder().encode(utf8));
        secrets.put(
                what + " (base64url)", Base64.getUrlEncoder().withoutPadding().encode(utf8));
    }
}
