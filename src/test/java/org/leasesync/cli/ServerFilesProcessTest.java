package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.ProcessTest;

/**
 * What {@code serve --data-dir} leaves on disk, with real processes: everything owner-only
 * (directories 0700, files 0600) under a umask of 000, for a new and for an existing directory; a
 * directory of another user refused; and no password or session token in clear in any file the
 * server or the users command wrote — the data dir with its H2 files, standard output and error.
 */
@ProcessTest
class ServerFilesProcessTest {

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Process p : started) {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private String serve(Path dataDir, String name) throws Exception {
        CliProcess serve = CliProcess.start(
                tmp,
                name,
                java.util.Map.of(),
                List.of("serve", "--port", "0", "--data-dir", dataDir.toString()),
                "000");
        started.add(serve.process);
        Path out = tmp.resolve(name + ".out");
        SignalStopProcessTest.waitUntil(
                "serve listens",
                90,
                () -> SignalStopProcessTest.read(out).contains("listening on ") || !serve.process.isAlive());
        assertThat(serve.process.isAlive())
                .as(SignalStopProcessTest.read(tmp.resolve(name + ".err")))
                .isTrue();
        return SignalStopProcessTest.read(out).lines().findFirst().orElseThrow().substring("listening on ".length());
    }

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static void allOwnerOnly(Path dir) throws Exception {
        assertThat(perms(dir)).as(dir.toString()).isEqualTo("rwx------");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                assertThat(perms(f)).as(f.toString()).isEqualTo(Files.isDirectory(f) ? "rwx------" : "rw-------");
            }
        }
    }

    @Test
    void aNewDataDirAndAnExistingOneAreOwnerOnlyWhateverTheUmask() throws Exception {
        Path fresh = tmp.resolve("new/parent/server");
        serve(fresh, "fresh");
        SignalStopProcessTest.waitUntil(
                "the database file exists", 30, () -> Files.exists(fresh.resolve("leasesync-server.mv.db")));
        allOwnerOnly(fresh);
        assertThat(perms(fresh.getParent())).isEqualTo("rwx------");
        started.get(0).destroy();
        assertThat(started.get(0).waitFor(30, TimeUnit.SECONDS)).isTrue();
        allOwnerOnly(fresh);

        Path existing = Files.createDirectories(tmp.resolve("existing"));
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path stray = Files.writeString(existing.resolve("notes.txt"), "x");
        Files.setPosixFilePermissions(stray, PosixFilePermissions.fromString("rw-rw-rw-"));
        serve(existing, "existing");
        allOwnerOnly(existing);
    }

    @Test
    void aDataDirOfAnotherUserIsRefused() throws Exception {
        Path theirs = Files.createDirectories(tmp.resolve("theirs"));
        Process chown = new ProcessBuilder("chown", "65534:65534", theirs.toString())
                .inheritIO()
                .start();
        assertThat(chown.waitFor())
                .as("chown needs root, as the tests run here")
                .isZero();

        CliProcess serve =
                CliProcess.start(tmp, "theirs", List.of("serve", "--port", "0", "--data-dir", theirs.toString()));
        CliProcess.Result r = serve.await(90);

        assertThat(r.code()).as(r.both()).isEqualTo(1);
        assertThat(r.err())
                .contains("belongs to another user")
                .contains("uid 65534")
                .contains(theirs.toString());
        assertThat(r.out()).isEmpty();
        try (Stream<Path> files = Files.list(theirs)) {
            assertThat(files.toList()).as("nothing written there").isEmpty();
        }
    }

    @Test
    void noFileTheServerWritesHoldsAPasswordOrASessionTokenInClear() throws Exception {
        Path data = tmp.resolve("server");
        String password = "pw-" + HexFormat.of().formatHex(SecureRandom.getSeed(12));
        CliProcess add = CliProcess.start(
                tmp, "add", List.of("users", "add", "erin", "--password-stdin", "--data-dir", data.toString()));
        try (OutputStream in = add.process.getOutputStream()) {
            in.write((password + "\n").getBytes(StandardCharsets.UTF_8));
        }
        assertThat(add.await(120).code()).isZero();
        String url = serve(data, "serve");

        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String body = "{\"user\":\"erin\",\"password\":\"" + password + "\",\"device\":\"dev-" + i + "\"}";
            try (Response r = UsersCliProcessTest.HTTP
                    .newCall(new Request.Builder()
                            .url(url + "/v1/sessions")
                            .post(RequestBody.create(body, MediaType.get("application/json")))
                            .build())
                    .execute()) {
                String answer = r.body().string();
                assertThat(r.code()).as(answer).isEqualTo(201);
                tokens.add(answer.replaceAll(".*\"token\":\"([^\"]+)\".*", "$1"));
            }
        }
        for (String path : List.of("/v1/users/erin/scopes/backup/changes", "/v1/sessions", "/v1/admin/stats")) {
            try (Response r = UsersCliProcessTest.HTTP
                    .newCall(new Request.Builder()
                            .url(url + path)
                            .header("Authorization", "Bearer " + tokens.get(0))
                            .build())
                    .execute()) {
                r.body().string();
            }
        }
        try (Response r = UsersCliProcessTest.HTTP
                .newCall(new Request.Builder()
                        .url(url + "/v1/sessions/current")
                        .header("Authorization", "Bearer " + tokens.get(1))
                        .delete()
                        .build())
                .execute()) {
            assertThat(r.code()).isEqualTo(204);
        }
        CliProcess.Result wrong = CliProcess.start(tmp, "list", List.of("users", "list", "--data-dir", data.toString()))
                .await(120);
        assertThat(wrong.code()).isEqualTo(1);
        started.get(0).destroy();
        assertThat(started.get(0).waitFor(30, TimeUnit.SECONDS)).isTrue();
        CliProcess.Result sessions = CliProcess.start(
                        tmp, "sessions", List.of("users", "sessions", "erin", "--json", "--data-dir", data.toString()))
                .await(120);
        assertThat(sessions.out()).contains("dev-0");

        List<Path> written;
        try (Stream<Path> all = Stream.concat(Files.walk(data), Files.list(tmp))) {
            written = all.filter(Files::isRegularFile).toList();
        }
        assertThat(written.stream().map(p -> p.getFileName().toString()))
                .contains("leasesync-server.mv.db", "serve.out", "serve.err", "add.err", "sessions.out");
        for (Path f : written) {
            byte[] bytes = Files.readAllBytes(f);
            String asLatin1 = new String(bytes, StandardCharsets.ISO_8859_1);
            assertThat(asLatin1).as(f + " holds the password").doesNotContain(password);
            for (String token : tokens) {
                assertThat(asLatin1).as(f + " holds a session token").doesNotContain(token);
            }
        }
    }
}
