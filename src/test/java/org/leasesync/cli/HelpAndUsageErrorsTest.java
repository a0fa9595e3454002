package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.leasesync.chaos.ChaosAgentCommand;
import org.leasesync.chaos.ChaosCommand;
import org.leasesync.chaos.ClusterCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** {@code --help} keeps paths and URLs whole at every width; an unknown command is named as one. */
class HelpAndUsageErrorsTest {

    static CommandLine commandLine() {
        return LeasesyncCommand.commandLine(
                new LeasesyncCommand(o -> {
                    throw new AssertionError("the window must not open: " + o);
                }),
                new ChaosCommand(),
                new ChaosAgentCommand(),
                new ClusterCommand());
    }

    static List<CommandLine> everyCommand(CommandLine root) {
        List<CommandLine> all = new ArrayList<>(List.of(root));
        all.addAll(root.getSubcommands().values());
        return all;
    }

    // compiled once: applied to every word of every option description at each of the 101 widths
    private static final Pattern SPACES = Pattern.compile("\\s+");
    private static final Pattern LEADING_PUNCTUATION = Pattern.compile("^[(\"']+");
    private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("[.,;:)\"']+$");

    /** Words of option descriptions that are paths or URLs: they contain '/' (e.g. ~/.local/share/leasesync). */
    static Set<String> pathsAndUrls(CommandLine command) {
        Set<String> tokens = new LinkedHashSet<>();
        for (OptionSpec o : command.getCommandSpec().options()) {
            for (String line : o.description()) {
                for (String word : SPACES.split(line)) {
                    String w = TRAILING_PUNCTUATION
                            .matcher(LEADING_PUNCTUATION.matcher(word).replaceAll(""))
                            .replaceAll("");
                    if (w.contains("/") && w.length() >= 6 && !w.contains("%") && !w.contains("${")) {
                        tokens.add(w);
                    }
                }
            }
        }
        return tokens;
    }

    /**
     * From 60 columns (below that the description column, width minus 29, is narrower than the longest
     * path, which then has to be cut) to a wide terminal.
     */
    static Stream<Integer> widths() {
        return IntStream.rangeClosed(60, 160).boxed();
    }

    @ParameterizedTest(name = "width {0}")
    @MethodSource("widths")
    void everyPathAndUrlInTheHelpOfEveryCommandStaysOnOneLine(int width) {
        CommandLine root = commandLine();
        root.setUsageHelpAutoWidth(false);
        root.setUsageHelpWidth(width);
        int checked = 0;
        for (CommandLine command : everyCommand(root)) {
            String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
            for (String token : pathsAndUrls(command)) {
                assertThat(usage)
                        .as(
                                "'%s' in the help of %s at width %d",
                                token, command.getCommandSpec().qualifiedName(), width)
                        .contains(token);
                checked++;
            }
            for (String line : usage.split("\n")) {
                boolean oneLongWord = line.strip().indexOf(' ') < 0;
                if (!oneLongWord) {
                    assertThat(line.length())
                            .as("line of %s: %s", command.getCommandSpec().qualifiedName(), line)
                            .isLessThanOrEqualTo(width);
                }
            }
        }
        assertThat(checked)
                .as("paths and URLs found in the option descriptions")
                .isGreaterThanOrEqualTo(10);
    }

    @Test
    void theDataDirectoryHelpAt80ColumnsShowsEachDefaultWhole() {
        CommandLine root = commandLine();
        root.setUsageHelpAutoWidth(false);
        root.setUsageHelpWidth(80);
        String usage = root.getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(usage)
                .contains("~/.local/share/leasesync.", "$XDG_DATA_HOME/leasesync", "http://127.0.0.1:8787.")
                .doesNotContain("~/.\n");
        // continuation lines are indented as picocli does
        assertThat(usage)
                .containsPattern("\n {29}Data directory|--data-dir=DIR {9}Data directory")
                .containsPattern("\n {31}\\S");
    }

    @Test
    void wrappingSplitsAtSpacesOnlyAndKeepsOverlongWordsWhole() {
        String text = "a path ~/.local/share/leasesync and http://127.0.0.1:8787 end";
        List<String> lines = HelpLayout.wrap(text, 12, 10).stream()
                .map(r -> text.substring(r[0], r[1]))
                .toList();
        assertThat(lines).containsExactly("a path", "~/.local/share/leasesync", "and", "http://127.0.0.1:8787", "end");
        assertThat(HelpLayout.wrap("", 10, 8)).hasSize(1);
        assertThat(HelpLayout.wrap("one two three", 80, 78).stream().map(r -> r[1] - r[0]))
                .containsExactly(13);
    }

    record Result(int code, String out, String err) {}

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void versionIsThePomsVersion() throws java.io.IOException {
        java.util.regex.Matcher pom = java.util.regex.Pattern.compile(
                        "<artifactId>leasesync</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(java.nio.file.Files.readString(java.nio.file.Path.of("pom.xml")));
        assertThat(pom.find()).isTrue();
        Result r = run("--version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).isEqualTo("leasesync " + pom.group(1) + "\n");
    }

    @Test
    void anUnknownCommandIsNamedAsOneWithTheCommandsThereAre() {
        Result r = run("bogus");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err())
                .isEqualTo(
                        "leasesync: unknown command 'bogus'; commands are: login, logout, accounts, sync, edit, resolve, records, "
                                + "outbox, serve, users, status, history, help, chaos\nTry 'leasesync --help' for the options.\n");
        assertThat(r.err()).doesNotContain("Unmatched");
    }

    @Test
    void aMistypedCommandGetsTheNearestName() {
        Result r = run("statsu", "--json");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("leasesync: unknown command 'statsu' (did you mean 'status'?); commands are: login, ");
    }

    @Test
    void anArgumentToACommandWithoutArgumentsIsNamedAsSuch() {
        Result r = run("status", "extra");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("leasesync: 'leasesync status' takes no arguments, only options: unexpected 'extra'\n");
    }

    @Test
    void anUnknownOptionKeepsPicocliMessage() {
        Result r = run("status", "--bogus");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("leasesync: Unknown option: '--bogus'");
    }

    @Test
    void editDistanceCountsSingleCharacterEdits() {
        assertThat(UsageErrors.editDistance("statsu", "status")).isEqualTo(2);
        assertThat(UsageErrors.editDistance("bogus", "status")).isEqualTo(4);
        assertThat(UsageErrors.editDistance("sync", "sync")).isZero();
        assertThat(UsageErrors.editDistance("", "edit")).isEqualTo(4);
    }
}
