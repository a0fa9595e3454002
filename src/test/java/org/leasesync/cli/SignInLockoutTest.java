package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.store.SignInLimits;
import org.leasesync.testing.MutableClock;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.ServerApi;

/**
 * The server's real sign-in limit through {@code leasesync login}: after 10 failed sign-ins of one
 * user within 15 minutes, {@code login} exits 7 naming the wait — even with the right password, and
 * a refused attempt does not lengthen it — while another user signs in as usual; once the window has
 * passed, the right password works and the account syncs. The accounts are made by {@code leasesync
 * users add}; the server is the real one on that data dir, in this JVM so that the test can move its
 * clock (every time the server reads is the injected {@code ServerConfig.clock}) instead of waiting
 * 15 minutes. The logins are real processes over HTTP.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@ProcessTest
class SignInLockoutTest {

    static final String PASSWORD = "correct horse battery staple";

    @TempDir
    Path tmp;

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T09:00:00Z"));
    ReferenceServer server;
    int runs;

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    CliProcess.Result cli(String stdin, String... args) throws Exception {
        return CliProcess.run(
                tmp,
                "run" + (runs++),
                Map.of(
                        "DBUS_SESSION_BUS_ADDRESS",
                        "",
                        "XDG_RUNTIME_DIR",
                        Files.createDirectories(tmp.resolve("no-bus")).toString()),
                stdin,
                List.of(args),
                120);
    }

    CliProcess.Result login(String user, String password) throws Exception {
        return cli(
                password,
                "login",
                "--server",
                server.baseUrl(),
                "--user",
                user,
                "--password-stdin",
                "--data-dir",
                tmp.resolve("data").toString());
    }

    @Test
    void tenFailuresLockTheUserOutForTheWindowAndTheRightPasswordWorksAfterIt() throws Exception {
        Path serverDir = tmp.resolve("server");
        for (String[] a : List.of(new String[] {"alice", PASSWORD}, new String[] {"bob", "bobs password"})) {
            CliProcess.Result add =
                    cli(a[1] + "\n", "users", "add", a[0], "--password-stdin", "--data-dir", serverDir.toString());
            assertThat(add.code()).as(add.both()).isZero();
        }
        server = ReferenceServer.start(ServerConfig.defaults()
                .withPort(0)
                .withDataDir(serverDir)
                .withSeed(Seed.NONE)
                .withClock(clock)
                .withJobs(JobSettings.defaults().withScheduled(false)));
        String url = server.baseUrl();

        for (int i = 0; i < SignInLimits.PER_USER; i++) {
            CliProcess.Result wrong = login("alice", "guess " + i);
            assertThat(wrong.code()).as("failure %d: %s", i, wrong.both()).isEqualTo(LoginCommand.WRONG_PASSWORD);
        }
        CliProcess.Result locked = login("alice", PASSWORD);
        assertThat(locked.code()).as(locked.both()).isEqualTo(LoginCommand.TOO_MANY_ATTEMPTS);
        assertThat(locked.err()).contains("too many failed sign-ins at " + url + "/; try again in 15m");
        assertThat(ServerApi.PLAIN.requests(url, "sessions", 429)).isEqualTo(1);
        assertThat(tmp.resolve("data/accounts.json")).as("not signed in").doesNotExist();

        CliProcess.Result bob = login("bob", "bobs password");
        assertThat(bob.code())
                .as("the limit is alice's, not this address's: " + bob.both())
                .isZero();

        clock.advance(Duration.ofMinutes(14));
        CliProcess.Result stillLocked = login("alice", PASSWORD);
        assertThat(stillLocked.code()).as(stillLocked.both()).isEqualTo(LoginCommand.TOO_MANY_ATTEMPTS);
        assertThat(stillLocked.err()).as("the refused attempts did not count").contains("try again in 1m");

        clock.advance(Duration.ofMinutes(1));
        CliProcess.Result in = login("alice", PASSWORD);
        assertThat(in.code()).as(in.both()).isZero();
        assertThat(in.out()).contains("signed in as alice on " + url);
        CliProcess.Result sync = cli(
                null,
                "sync",
                "--user",
                "alice",
                "--scope",
                "course_sync",
                "--data-dir",
                tmp.resolve("data").toString());
        assertThat(sync.code()).as(sync.both()).isZero();
        assertThat(sync.out()).contains("alice|course_sync synced");
    }
}
