package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.leasesync.testing.ProcessTest;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * No option given before a subcommand is silently ignored: every option applies wherever
 * it is written (before or after the subcommand's name) or is refused with a usage error. The value
 * matrix parses in-process; the trial's three faults run as real processes.
 */
@ProcessTest
class OptionsBeforeSubcommandTest {

    @TempDir
    Path tmp;

    @AfterEach
    void resetLogging() {
        LoggingSetup.removeFileLogForTests();
    }

    /** Each client subcommand with its required arguments that are not top-level options. */
    static final Map<String, List<String>> CLIENT_COMMANDS = Map.of(
            "sync", List.of("--scope", "backup"),
            "edit", List.of("--scope", "backup", "--id", "x", "--payload", "{}"),
            "records", List.of("--scope", "backup"),
            "status", List.of(),
            "history", List.of("--key", "alice|backup"));

    /** A value for each top-level option, none of them its default. */
    static final Map<String, String> VALUES = Map.ofEntries(
            Map.entry("--data-dir", "/tmp/leasesync-option-position"),
            Map.entry("--db-open-timeout", "7s"),
            Map.entry("--server", "http://127.0.0.1:9,http://127.0.0.1:10"),
            Map.entry("--user", "carol"),
            Map.entry("--token", "tok-123"),
            Map.entry("--token-file", "/tmp/leasesync-option-position-token"),
            Map.entry("--token-stdin", "true"),
            Map.entry("--allow-insecure-http", "true"),
            Map.entry("--ca-file", "/tmp/leasesync-option-position-ca.pem"),
            Map.entry("--lease-ttl", "90s"),
            Map.entry("--connect-timeout", "7s"),
            Map.entry("--read-timeout", "12s"),
            Map.entry("--call-timeout", "20s"),
            Map.entry("--schedule-interval", "2m"),
            Map.entry("--foreground-min-interval", "30s"));

    /** The top-level options each client subcommand takes too (the rest are refused before it). */
    static final Map<String, List<String>> SHARED = Map.of(
            "sync",
                    List.of(
                            "--allow-insecure-http",
                            "--ca-file",
                            "--call-timeout",
                            "--connect-timeout",
                            "--data-dir",
                            "--db-open-timeout",
                            "--lease-ttl",
                            "--read-timeout",
                            "--server",
                            "--token",
                            "--token-file",
                            "--token-stdin",
                            "--user"),
            "edit", List.of("--data-dir", "--db-open-timeout", "--user"),
            "records", List.of("--data-dir", "--db-open-timeout", "--user"),
            "status", List.of("--data-dir", "--db-open-timeout"),
            "history", List.of("--data-dir", "--db-open-timeout"));

    static CommandLine commandLine() {
        return LeasesyncCommand.commandLine(new LeasesyncCommand(o -> {
            throw new AssertionError("the window must not open: " + o);
        }));
    }

    @Test
    void theTopLevelOptionsAreTheWindowsAndEachClientCommandSharesTheExpectedOnes() {
        CommandLine cl = commandLine();
        TreeSet<String> top = new TreeSet<>();
        for (OptionSpec o : cl.getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                top.add(o.longestName());
            }
        }
        assertThat(top).isEqualTo(new TreeSet<>(VALUES.keySet()));
        for (var e : SHARED.entrySet()) {
            TreeSet<String> shared = new TreeSet<>();
            for (String name : top) {
                if (cl.getSubcommands().get(e.getKey()).getCommandSpec().findOption(name) != null) {
                    shared.add(name);
                }
            }
            assertThat(shared).as(e.getKey()).containsExactlyElementsOf(e.getValue());
        }
    }

    static Stream<Arguments> sharedOptions() {
        List<Arguments> cases = new ArrayList<>();
        SHARED.forEach((cmd, options) -> options.forEach(o -> cases.add(Arguments.of(cmd, o))));
        return cases.stream();
    }

    /** The value the subcommand ends up with after parsing {@code args}. */
    static Object valueAfterParsing(List<String> args, String command, String option) {
        CommandLine cl = commandLine();
        cl.parseArgs(args.toArray(String[]::new));
        return cl.getSubcommands()
                .get(command)
                .getCommandSpec()
                .findOption(option)
                .getValue();
    }

    /** Options without a value: given means true. */
    static final java.util.Set<String> FLAGS = java.util.Set.of("--token-stdin", "--allow-insecure-http");

    static List<String> given(String option) {
        return FLAGS.contains(option) ? List.of(option) : List.of(option, VALUES.get(option));
    }

    static List<String> args(String command, String option, boolean before) {
        List<String> a = new ArrayList<>();
        if (before) {
            a.addAll(given(option));
        }
        a.add(command);
        a.addAll(CLIENT_COMMANDS.get(command));
        for (String required : List.of("--user", "--server")) {
            if (!required.equals(option) && SHARED.get(command).contains(required)) {
                a.addAll(List.of(required, VALUES.get(required)));
            }
        }
        if (!before) {
            a.addAll(given(option));
        }
        return a;
    }

    @ParameterizedTest(name = "{1} before or after {0}")
    @MethodSource("sharedOptions")
    void anOptionWrittenBeforeTheSubcommandGivesItTheSameValueAsWrittenAfterIt(String command, String option) {
        Object after = valueAfterParsing(args(command, option, false), command, option);
        Object before = valueAfterParsing(args(command, option, true), command, option);
        Object expected = switch (option) {
            case "--data-dir", "--token-file", "--ca-file" -> Path.of(VALUES.get(option));
            case "--server", "--user", "--token" -> VALUES.get(option);
            case "--token-stdin", "--allow-insecure-http" -> Boolean.TRUE;
            default -> DurationConverter.parse(VALUES.get(option));
        };
        assertThat(after).isEqualTo(expected);
        assertThat(before).isEqualTo(expected);
        // and not the default: the value when the option is not given at all differs
        List<String> without = new ArrayList<>(args(command, option, false));
        without.subList(without.size() - given(option).size(), without.size()).clear();
        if (!option.equals("--user") && !option.equals("--server")) { // required: cannot be left out
            assertThat(valueAfterParsing(without, command, option)).isNotEqualTo(expected);
        }
    }

    record Result(int code, String out, String err) {}

    Result run(List<String> args) {
        LoggingSetup.removeFileLogForTests();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }

    static Arguments refused(String message, String... args) {
        return Arguments.of(String.join(" ", args), List.of(args), message);
    }

    static Stream<Arguments> refusedBeforeTheSubcommand() {
        String[] syncArgs = {"--user", "alice", "--scope", "backup", "--server", "http://127.0.0.1:1", "--token", "t"};
        List<Arguments> cases = new ArrayList<>(List.of(
                refused(
                        "--schedule-interval (written before 'sync') is not an option of 'sync': it is for the window only",
                        concat(List.of("--schedule-interval", "1m", "sync"), syncArgs)),
                refused(
                        "--foreground-min-interval (written before 'status') is not an option of 'status': it is for the "
                                + "window only",
                        "--foreground-min-interval",
                        "1m",
                        "status"),
                refused(
                        "--server (written before 'status') is not an option of 'status'", "--server",
                        "http://127.0.0.1:1", "status"),
                refused(
                        "--lease-ttl (written before 'history') is not an option of 'history'",
                        "--lease-ttl",
                        "5s",
                        "history",
                        "--key",
                        "alice|backup"),
                refused(
                        "--token (written before 'records') is not an option of 'records'",
                        "--token",
                        "t",
                        "records",
                        "--user",
                        "alice",
                        "--scope",
                        "backup"),
                refused(
                        "--call-timeout (written before 'edit') is not an option of 'edit'",
                        "--call-timeout",
                        "5s",
                        "edit",
                        "--user",
                        "alice",
                        "--scope",
                        "backup",
                        "--id",
                        "x",
                        "--payload",
                        "{}"),
                refused(
                        "--data-dir is written before 'serve', which takes no options there: write 'serve' first, then "
                                + "its own --data-dir",
                        "--data-dir",
                        "/tmp/x",
                        "serve",
                        "--port",
                        "70000"),
                refused(
                        "--lease-ttl is written before 'serve', which takes no options there: 'serve' has no --lease-ttl",
                        "--lease-ttl",
                        "5s",
                        "serve",
                        "--port",
                        "70000"),
                refused(
                        "--data-dir is written before 'help', which takes no options there",
                        "--data-dir",
                        "/tmp/x",
                        "help",
                        "status"),
                refused(
                        "--data-dir is given twice, '/tmp/a' before 'status' and '/tmp/b' after it; give it once",
                        "--data-dir",
                        "/tmp/a",
                        "status",
                        "--data-dir",
                        "/tmp/b"),
                refused(
                        "--user is given twice, 'bob' before 'sync' and 'alice' after it",
                        concat(List.of("--user", "bob", "sync"), syncArgs)),
                // the checks of the values the subcommand resolved run, wherever they were written
                refused(
                        "--call-timeout (5s) must be shorter than 90% of --lease-ttl (1s)",
                        concat(List.of("--lease-ttl", "1s", "--call-timeout", "5s", "sync"), syncArgs)),
                refused(
                        "--call-timeout (5s) must be shorter than 90% of --lease-ttl (1s)",
                        concat(
                                List.of("--lease-ttl", "1s", "sync"),
                                concat(List.of(syncArgs), "--call-timeout", "5s"))),
                refused(
                        "--lease-ttl (or LEASESYNC_LEASE_TTL) must be between 100ms and 1d, got 0s",
                        concat(List.of("--lease-ttl", "0s", "sync"), syncArgs)),
                refused(
                        "--db-open-timeout (or LEASESYNC_DB_OPEN_TIMEOUT) must be between 200ms and 10m, got 1ms",
                        "--db-open-timeout",
                        "1ms",
                        "status"),
                refused(
                        "invalid --server: 'ftp://x' is not an http:// or https:// URL",
                        "--server",
                        "ftp://x",
                        "sync",
                        "--user",
                        "alice",
                        "--scope",
                        "backup",
                        "--token",
                        "t"),
                refused(
                        "invalid --user: user id 'al ice' cannot be used with a sync server",
                        "--user",
                        "al ice",
                        "sync",
                        "--scope",
                        "backup",
                        "--server",
                        "http://127.0.0.1:1",
                        "--token",
                        "t"),
                refused("'5x' is not a duration", "--read-timeout", "5x", "sync", "--user", "alice")));
        return cases.stream();
    }

    static String[] concat(List<String> first, String... rest) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedBeforeTheSubcommand")
    void anOptionASubcommandCannotTakeFromBeforeItIsAUsageErrorAndNothingIsTouched(
            String name, List<String> args, String message) throws IOException {
        Path cwdData = tmp.resolve("data");
        List<String> withEnvDir = new ArrayList<>(args);
        Result r = run(withEnvDir);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("leasesync: ").contains(message).doesNotContain("\tat ", "Exception");
        assertThat(r.out()).isEmpty();
        assertThat(cwdData).doesNotExist();
        assertThat(Path.of("/tmp/a")).doesNotExist();
        assertThat(Path.of("/tmp/b")).doesNotExist();
    }

    @Test
    void theSameValueBeforeAndAfterTheSubcommandIsAccepted() {
        Path dir = tmp.resolve("same");
        Result r = run(List.of("--data-dir", dir.toString(), "status", "--json", "--data-dir", dir.toString()));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("\"dataDir\" : \"" + dir + "\"");
    }

    // --- the trial's faults, as real processes -------------------------------------------------

    /** The environment of a user whose default data directory is {@code tmp/xdg/leasesync}. */
    Map<String, String> env() {
        return Map.of("XDG_DATA_HOME", tmp.resolve("xdg").toString());
    }

    Path defaultDir() {
        return tmp.resolve("xdg").resolve("leasesync");
    }

    @Test
    void dataDirBeforeStatusIsTheDirectoryStatusReports() throws Exception {
        Path dir = tmp.resolve("chosen");
        CliProcess.Result r = CliProcess.start(tmp, "status", env(), List.of("--data-dir", dir.toString(), "status"))
                .await(60);
        assertThat(r.code()).as(r.both()).isZero();
        assertThat(r.out()).startsWith("data directory: " + dir + "\n");
        assertThat(defaultDir()).doesNotExist();
    }

    @Test
    void dataDirBeforeSyncReceivesTheRunAndTheDefaultDatabaseIsNeverCreated() throws Exception {
        Path dir = tmp.resolve("chosen");
        CliProcess.Result sync = CliProcess.start(
                        tmp,
                        "sync",
                        env(),
                        List.of(
                                "--data-dir",
                                dir.toString(),
                                "--connect-timeout",
                                "300ms",
                                "sync",
                                "--user",
                                "alice",
                                "--scope",
                                "backup",
                                "--server",
                                "http://127.0.0.1:1",
                                "--token",
                                "t"))
                .await(90);
        assertThat(sync.code()).as(sync.both()).isEqualTo(1);
        assertThat(sync.out()).startsWith("alice|backup sync failed: cannot reach the sync server");
        assertThat(dir.resolve("leasesync.mv.db")).exists();
        assertThat(defaultDir()).as("the default data directory").doesNotExist();

        CliProcess.Result status = CliProcess.start(
                        tmp, "status", env(), List.of("status", "--json", "--data-dir", dir.toString()))
                .await(60);
        assertThat(status.code()).as(status.both()).isZero();
        JsonNode json = new ObjectMapper().readTree(status.out());
        assertThat(json.get("lastRuns")).hasSize(1);
        assertThat(json.get("lastRuns").get(0).get("key").asText()).isEqualTo("alice|backup");
        assertThat(json.get("lastRuns").get(0).get("status").asText()).isEqualTo("failed");
        assertThat(defaultDir()).doesNotExist();
    }

    @Test
    void leaseTtlAndCallTimeoutBeforeSyncAreValidatedLikeAfterIt() throws Exception {
        Path dir = tmp.resolve("chosen");
        CliProcess.Result r = CliProcess.start(
                        tmp,
                        "sync",
                        env(),
                        List.of(
                                "--lease-ttl",
                                "1s",
                                "--call-timeout",
                                "5s",
                                "sync",
                                "--user",
                                "alice",
                                "--scope",
                                "backup",
                                "--server",
                                "http://127.0.0.1:1",
                                "--token",
                                "t",
                                "--data-dir",
                                dir.toString()))
                .await(60);
        assertThat(r.code()).as(r.both()).isEqualTo(2);
        assertThat(r.err())
                .isEqualTo(
                        "leasesync: --call-timeout (5s) must be shorter than 90% of --lease-ttl (1s), "
                                + "so that no request of a run outlives its lease\nTry 'leasesync sync --help' for the options.\n");
        assertThat(dir).doesNotExist();
        assertThat(defaultDir()).doesNotExist();
    }

    @Test
    void durationsInTheMatrixAreNotTheDefaults() {
        // guards the matrix above: a value equal to a default would pass without the fix
        assertThat(DurationConverter.parse(VALUES.get("--lease-ttl"))).isNotEqualTo(Duration.ofSeconds(60));
        assertThat(DurationConverter.parse(VALUES.get("--db-open-timeout"))).isNotEqualTo(Duration.ofSeconds(40));
        assertThat(DurationConverter.parse(VALUES.get("--call-timeout"))).isNotEqualTo(Duration.ofSeconds(45));
    }
}
