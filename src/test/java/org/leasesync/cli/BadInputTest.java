package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.leasesync.testing.ProcessTest;
import picocli.CommandLine;

/**
 * Bad configuration and bad command-line input: a plain message naming the option and the value,
 * exit code 2, and nothing touched — no data directory, no database, no lock, no log file.
 * In-process, with the file log reset before each case so every case starts as a fresh process.
 */
@ProcessTest
class BadInputTest {

    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {}

    @AfterEach
    void resetLogging() {
        LoggingSetup.removeFileLogForTests();
    }

    Result run(List<String> args) {
        LoggingSetup.removeFileLogForTests();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = LeasesyncCommand.commandLine(new LeasesyncCommand(o -> {
            throw new AssertionError("the window must not open on bad input: " + o);
        }));
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }

    static final List<String> SYNC =
            List.of("sync", "--user", "alice", "--scope", "backup", "--server", "http://127.0.0.1:1", "--token", "t");
    static final List<String> EDIT = List.of("edit", "--user", "alice", "--scope", "backup", "--id", "x");

    static Arguments bad(String expectedMessage, List<String> base, String... extra) {
        List<String> args = new ArrayList<>(base);
        args.addAll(List.of(extra));
        return Arguments.of(String.join(" ", args), args, expectedMessage);
    }

    static Stream<Arguments> badInputs() {
        String longUser = "u".repeat(201);
        return Stream.of(
                bad("'5x' is not a duration", SYNC, "--lease-ttl", "5x"),
                // found in a break-it trial: a newline in LEASESYNC_TOKEN failed the run at its first request
                bad(
                        "the token from --token has a control character at position 4; "
                                + "a bearer token is visible ASCII only (RFC 6750)",
                        List.of("sync", "--user", "alice", "--scope", "backup", "--server", "http://127.0.0.1:1"),
                        "--token",
                        "bad\ntoken"),
                bad(
                        "--lease-ttl (or LEASESYNC_LEASE_TTL) must be between 100ms and 1d, got 0s",
                        SYNC,
                        "--lease-ttl",
                        "0s"),
                bad(
                        "Invalid value for option '--lease-ttl': 'PT-5S' is a negative duration",
                        SYNC,
                        "--lease-ttl",
                        "PT-5S"),
                bad("--call-timeout (55s) must be shorter than 90% of --lease-ttl (1m)", SYNC, "--call-timeout", "55s"),
                bad(
                        "HTTP timeouts must be between 1ms and 10m, got --connect-timeout 3s, --read-timeout 0s",
                        SYNC,
                        "--read-timeout",
                        "0ms"),
                bad(
                        "--db-open-timeout (or LEASESYNC_DB_OPEN_TIMEOUT) must be between 200ms and 10m, got 1ms",
                        SYNC,
                        "--db-open-timeout",
                        "1ms"),
                bad(
                        "invalid --scope: unknown scope 'photos'",
                        List.of("sync", "--user", "alice", "--server", "http://127.0.0.1:1", "--token", "t"),
                        "--scope",
                        "photos"),
                bad(
                        "invalid --user: user id must not be blank",
                        List.of("sync", "--scope", "backup", "--server", "http://127.0.0.1:1", "--token", "t"),
                        "--user",
                        ""),
                bad(
                        "invalid --user: user id is 201 characters long",
                        List.of("sync", "--scope", "backup", "--server", "http://127.0.0.1:1", "--token", "t"),
                        "--user",
                        longUser),
                bad(
                        "invalid --user: user id 'al ice' cannot be used with a sync server",
                        List.of("sync", "--scope", "backup", "--server", "http://127.0.0.1:1", "--token", "t"),
                        "--user",
                        "al ice"),
                bad(
                        "invalid --server: 'ftp://example.org' is not an http:// or https:// URL",
                        List.of("sync", "--user", "alice", "--scope", "backup", "--token", "t"),
                        "--server",
                        "ftp://example.org"),
                bad(
                        "invalid --server: 'ftp://b.example' (entry 2 of 3) is not an http:// or https:// URL",
                        List.of("sync", "--user", "alice", "--scope", "backup", "--token", "t"),
                        "--server",
                        "http://a.example,ftp://b.example,http://c.example"),
                bad(
                        "invalid --server: 'http://127.0.0.1:1/' (entry 2 of 2) repeats entry 1",
                        List.of("sync", "--user", "alice", "--scope", "backup", "--token", "t"),
                        "--server",
                        "http://127.0.0.1:1,http://127.0.0.1:1/"),
                bad(
                        "invalid --server: entry 2 of 3 is empty",
                        List.of("sync", "--user", "alice", "--scope", "backup", "--token", "t"),
                        "--server",
                        "http://a.example,,http://c.example"),
                bad(
                        "invalid --server: 17 server URLs given; at most 16 are allowed",
                        List.of("sync", "--user", "alice", "--scope", "backup", "--token", "t"),
                        "--server",
                        seventeenUrls()),
                bad("invalid --source: unknown trigger source 'telepathy'", SYNC, "--source", "telepathy"),
                bad("Unknown option: '--bogus'", SYNC, "--bogus"),
                bad(
                        "--check-again and --discard-unconfirmed exclude each other",
                        SYNC,
                        "--check-again",
                        "--discard-unconfirmed"),
                bad(
                        "give exactly one of --payload JSON, --payload-file PATH or --delete",
                        EDIT,
                        "--payload",
                        "{}",
                        "--delete"),
                bad("--payload is not valid JSON", EDIT, "--payload", "{nope"),
                bad(
                        "invalid --id: record id ' ' begins or ends with white space",
                        List.of("edit", "--user", "alice", "--scope", "backup", "--payload", "{}"),
                        "--id",
                        " "),
                bad(
                        "invalid --scope: unknown scope 'photos'",
                        List.of("edit", "--user", "alice", "--id", "x", "--payload", "{}"),
                        "--scope",
                        "photos"),
                bad(
                        "--db-open-timeout (or LEASESYNC_DB_OPEN_TIMEOUT) must be between 200ms and 10m, got 0s",
                        List.of("status"),
                        "--db-open-timeout",
                        "0s"),
                bad("Unknown option: '--bogus'", List.of("status"), "--bogus"),
                bad("invalid --key: unknown scope 'photos'", List.of("history"), "--key", "alice|photos"),
                bad("--limit must be 1..10000, got 0", List.of("history", "--key", "alice|backup"), "--limit", "0"),
                bad("invalid --user: user id must not be blank", List.of("records", "--scope", "backup"), "--user", ""),
                bad(
                        "invalid --server: 'ftp://example.org' is not an http:// or https:// URL",
                        List.of("--user", "alice", "--token", "t"),
                        "--server",
                        "ftp://example.org"),
                bad(
                        "invalid --server: 'localhost:8787' (entry 2 of 2) is not an http:// or https:// URL",
                        List.of("--user", "alice", "--token", "t"),
                        "--server",
                        "http://127.0.0.1:8787, localhost:8787"),
                bad(
                        "invalid --server: 'http://a.example/' (entry 3 of 3) repeats entry 1",
                        List.of("--user", "alice", "--token", "t"),
                        "--server",
                        "http://a.example,http://b.example,http://A.example"),
                bad("--user needs --server", List.of(), "--user", "alice"),
                bad("--schedule-interval must be at least 1s, got 500ms", List.of(), "--schedule-interval", "500ms"),
                bad(
                        "--call-timeout (1s) must be shorter than 90% of --lease-ttl (1s)",
                        List.of(), "--lease-ttl", "1s", "--call-timeout", "1s"),
                bad(
                        "Invalid value for option '--foreground-min-interval': 'PT-1S' is a negative duration",
                        List.of(),
                        "--foreground-min-interval",
                        "PT-1S"));
    }

    static String seventeenUrls() {
        return String.join(
                ",",
                java.util.stream.IntStream.rangeClosed(1, 17)
                        .mapToObj(i -> "http://127.0.0.1:" + (8000 + i))
                        .toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void badInputIsAUsageErrorNamingTheOptionAndValueAndTouchesNothing(
            String name, List<String> args, String expectedMessage) throws IOException {
        Path dir = tmp.resolve("data");
        List<String> withDir = new ArrayList<>(args);
        withDir.addAll(List.of("--data-dir", dir.toString()));
        Result r = run(withDir);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("leasesync: ").contains(expectedMessage).doesNotContain("\tat ", "Exception");
        assertThat(r.out()).isEmpty();
        assertThat(dir).as("the data directory must not be created").doesNotExist();
        try (var left = Files.list(tmp)) {
            assertThat(left).isEmpty();
        }
    }

    static Stream<List<String>> everyCommand() {
        return Stream.of(
                SYNC,
                List.of("edit", "--user", "alice", "--scope", "backup", "--id", "x", "--payload", "{}"),
                List.of("status"),
                List.of("history", "--key", "alice|backup"),
                List.of("records", "--user", "alice", "--scope", "backup"),
                List.of());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCommand")
    void aDataDirectoryThatIsARegularFileIsAUsageErrorForEveryCommandAndStaysAsItWas(List<String> args)
            throws IOException {
        Path notADir = tmp.resolve("plain-file");
        Files.writeString(notADir, "hello");
        List<String> withDir = new ArrayList<>(args);
        withDir.addAll(List.of("--data-dir", notADir.toString()));
        Result r = run(withDir);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err())
                .contains(
                        "the data directory " + notADir + " is a file, not a directory",
                        "--data-dir or LEASESYNC_DATA_DIR")
                .doesNotContain("\tat ");
        assertThat(Files.readString(notADir)).isEqualTo("hello");
        try (var left = Files.list(tmp)) {
            assertThat(left).containsExactly(notADir);
        }
    }

    /**
     * A directory this process cannot write: without write permission for an ordinary user; root may
     * write anywhere, so for root it is a read-only bind mount (writes fail with EROFS even for root).
     * Never skipped: CI runs as root.
     */
    @Test
    void aDataDirectoryWithoutWritePermissionIsAUsageErrorAndNothingIsCreatedInIt() throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path locked = tmp.resolve("locked");
        if (root) {
            Files.createDirectory(locked);
            command("mount", "--bind", locked.toString(), locked.toString());
            command("mount", "-o", "remount,bind,ro", locked.toString());
        } else {
            Files.createDirectory(
                    locked, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-x------")));
        }
        try {
            Result r = run(List.of(
                    "edit",
                    "--user",
                    "alice",
                    "--scope",
                    "backup",
                    "--id",
                    "x",
                    "--payload",
                    "{}",
                    "--data-dir",
                    locked.resolve("data").toString()));
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).contains("cannot use the data directory", locked + " is not writable");
            try (var left = Files.list(locked)) {
                assertThat(left).isEmpty();
            }
        } finally {
            if (root) {
                command("umount", locked.toString());
            } else {
                Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
            }
        }
    }

    private static void command(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS))
                .as(String.join(" ", argv))
                .isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.exitValue()).as(String.join(" ", argv) + ": " + out).isZero();
    }
}
