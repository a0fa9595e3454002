package org.leasesync.cli;

import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Options written before a subcommand ({@code leasesync --data-dir X status}). The {@code leasesync}
 * command declares the window's options; a subcommand has its own. Without this, picocli sets an
 * option written before the subcommand on the top-level command, where nothing reads it, and the
 * subcommand silently runs on its default.
 *
 * <p>So every such option either applies to the subcommand or is refused, with picocli's own means:
 * <ol>
 *   <li>A <em>client</em> subcommand (one that works on the local data directory: {@code sync},
 *       {@code edit}, {@code records}, {@code status}, {@code history}) gets a default value provider
 *       ({@link #defaultValue}): an option it did not get after its name takes the text written before
 *       it, if the top-level command has an option of that name. picocli then converts, validates and
 *       counts it as given exactly as if it had been written after the subcommand — required options
 *       included — and the subcommand's own checks (e.g. {@code --call-timeout} under 90% of
 *       {@code --lease-ttl}) run on the values it resolved.</li>
 *   <li>Before anything runs, {@link #check} refuses an option written before a subcommand that does
 *       not take it (a window-only option such as {@code --schedule-interval} before {@code sync}; any
 *       option before {@code serve}, {@code help} or the harness commands, whose options mean other
 *       things), and one written both before and after it with different values.</li>
 * </ol>
 *
 * <p>Not thread-safe; one instance per command line, which is parsed once.
 */
final class OptionsBeforeSubcommand implements CommandLine.IDefaultValueProvider {

    private final CommandSpec top;

    private OptionsBeforeSubcommand(CommandSpec top) {
        this.top = top;
    }

    /** Installs the default value provider on every client subcommand of {@code line}. */
    static void install(CommandLine line) {
        OptionsBeforeSubcommand provider = new OptionsBeforeSubcommand(line.getCommandSpec());
        for (CommandLine sub : line.getSubcommands().values()) {
            if (isClientCommand(sub.getCommandSpec())) {
                sub.setDefaultValueProvider(provider);
            }
        }
    }

    /** The text written before the subcommand for an option of the same name, or null (picocli's own default). */
    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        return writtenBefore(option.longestName()).orElse(null);
    }

    private Optional<String> writtenBefore(String name) {
        OptionSpec before = top.findOption(name);
        if (before == null || before.usageHelp() || before.versionHelp()) {
            return Optional.empty();
        }
        List<String> given = before.originalStringValues();
        return given.isEmpty() ? Optional.empty() : Optional.of(given.get(given.size() - 1));
    }

    /**
     * Refuses an option written before {@code sub} that {@code sub} does not take, and one written
     * before and after it with different values.
     *
     * @param top the parse result of the top-level command
     * @param sub the parse result of the subcommand that runs
     * @throws ParameterException naming the option, the subcommand and what to do (a usage error)
     */
    static void check(ParseResult top, ParseResult sub) {
        CommandSpec spec = sub.commandSpec();
        String name = spec.name();
        for (OptionSpec given : top.matchedOptions()) {
            if (given.usageHelp() || given.versionHelp()) {
                continue;
            }
            String option = given.longestName();
            String text = String.join(",", given.originalStringValues());
            OptionSpec own = spec.findOption(option);
            if (!isClientCommand(spec)) {
                throw new ParameterException(
                        spec.commandLine(),
                        option + " is written before '" + name + "', which "
                                + "takes no options there: "
                                + (own == null
                                        ? "'" + name + "' has no " + option
                                        : "write '" + name + "' first, then its own " + option)
                                + " (options before a command are "
                                + "the window's and the client commands')");
            }
            if (own == null) {
                throw new ParameterException(
                        spec.commandLine(),
                        option + " (written before '" + name + "') is not an " + "option of '" + name + "'"
                                + (WINDOW_ONLY.contains(option) ? ": it is for the window only" : ""));
            }
            OptionSpec after = sub.matchedOption(option);
            if (after != null && !after.originalStringValues().equals(given.originalStringValues())) {
                throw new ParameterException(
                        spec.commandLine(),
                        option + " is given twice, '" + text + "' before '" + name + "' and '"
                                + String.join(",", after.originalStringValues()) + "' after it; give it once");
            }
        }
    }

    private static final List<String> WINDOW_ONLY = List.of("--schedule-interval", "--foreground-min-interval");

    /** A command that works on the client's data directory (it has the {@code --data-dir} mixin). */
    static boolean isClientCommand(CommandSpec spec) {
        return dataDirMixin(spec).isPresent();
    }

    /** The command's {@link DataDirMixin}, if it has one. */
    static Optional<DataDirMixin> dataDirMixin(CommandSpec spec) {
        return spec.mixins().values().stream()
                .map(CommandSpec::userObject)
                .filter(DataDirMixin.class::isInstance)
                .map(DataDirMixin.class::cast)
                .findFirst();
    }
}
