package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.leasesync.lease.LeasesyncException;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code leasesync} command: with no subcommand it opens the desktop window; with one it runs
 * the CLI. Exit codes: 0 success, 1 failure, 2 usage error (plus the codes a subcommand documents).
 */
@Command(
        name = "leasesync",
        mixinStandardHelpOptions = true,
        versionProvider = LeasesyncCommand.Version.class,
        description = {
            "A desktop sync client that never runs the same sync task twice at once.",
            "Without a subcommand: opens the window — with --server, as a signed-in account (leasesync login), "
                    + "else the embedded demo server."
        },
        subcommands = {
            LoginCommand.class,
            LogoutCommand.class,
            AccountsCommand.class,
            SyncCommand.class,
            EditCommand.class,
            ResolveCommand.class,
            RecordsCommand.class,
            OutboxCommand.class,
            ServeCommand.class,
            UsersCommand.class,
            StatusCommand.class,
            HistoryCommand.class,
            CommandLine.HelpCommand.class
        })
public final class LeasesyncCommand implements Callable<Integer>, WritesDataDir {

    /** {@code --version}: the build's version, so the number lives only in the pom. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"leasesync " + org.leasesync.client.ProductVersion.get()};
        }
    }

    @Mixin
    DataDirMixin dataDir;

    @Option(
            names = "--server",
            paramLabel = "URL[,URL...]",
            description = HttpOptions.SERVER_HELP
                    + " E.g. https://sync.example.org or http://127.0.0.1:8787. Default: the signed-in account's (the newest sign-in, or --user's); "
                    + "with none, start the embedded reference server with demo data and sign in as alice.")
    String server;

    @Option(
            names = "--user",
            paramLabel = "USER",
            description = "User to sync as: with --server and a token, or the " + "signed-in account of this user.")
    String user;

    @Mixin
    TokenOptions tokenOptions;

    @Mixin
    TransportOptions transportOptions;

    @Mixin
    RegistryOptions registryOptions;

    @Mixin
    HttpOptions httpOptions;

    @Option(
            names = "--schedule-interval",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_SCHEDULE_INTERVAL:-5m}",
            description = "Timer trigger interval (±10%% jitter). Default: $LEASESYNC_SCHEDULE_INTERVAL, else 5m.")
    java.time.Duration scheduleInterval;

    @Option(
            names = "--foreground-min-interval",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_FOREGROUND_MIN_INTERVAL:-1m}",
            description = "No sync on coming back to the window when the key synced successfully less than this ago. "
                    + "Default: $LEASESYNC_FOREGROUND_MIN_INTERVAL, else 1m.")
    java.time.Duration foregroundMinInterval;

    @Spec
    CommandSpec spec;

    private final Function<GuiOptions, Integer> gui;

    /** @param gui opens the window; returns the exit code when it closes */
    public LeasesyncCommand(Function<GuiOptions, Integer> gui) {
        this.gui = gui;
    }

    private GuiOptions options;

    @Override
    public void validate() {
        Optional<ServerChoice.Chosen> chosen = chooseServer();
        if (scheduleInterval.compareTo(java.time.Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException(
                    "--schedule-interval must be at least 1s, got " + DurationConverter.format(scheduleInterval));
        }
        if (foregroundMinInterval.isNegative()) {
            throw new IllegalArgumentException("--foreground-min-interval must not be negative, got "
                    + DurationConverter.format(foregroundMinInterval));
        }
        java.time.Duration ttl = registryOptions.leaseTtl();
        org.leasesync.remote.HttpSettings http = httpOptions.settings();
        if (http.call().compareTo(ttl.multipliedBy(9).dividedBy(10)) >= 0) {
            throw new IllegalArgumentException("--call-timeout (" + DurationConverter.format(http.call())
                    + ") must be shorter than 90% of --lease-ttl (" + DurationConverter.format(ttl) + ")");
        }
        java.util.Set<String> given = given(System.getenv());
        chosen.filter(c -> c.account().isPresent()).ifPresent(c -> given.add(WINDOW_ACCOUNT));
        options = new GuiOptions(
                dataDir.resolve(),
                chosen.map(ServerChoice.Chosen::servers),
                chosen.map(ServerChoice.Chosen::user),
                chosen.flatMap(ServerChoice.Chosen::token),
                ttl,
                http,
                scheduleInterval,
                foregroundMinInterval,
                dataDir.openTimeout(),
                given,
                chosen.map(ServerChoice.Chosen::transport).orElse(org.leasesync.remote.TransportSecurity.DEFAULT),
                chosen.flatMap(ServerChoice.Chosen::account));
    }

    /**
     * The server the window talks to: {@code --server} with a token given for this launch, or a signed-in
     * account ({@code --user}'s, else the newest sign-in); empty for the embedded demo server.
     */
    private Optional<ServerChoice.Chosen> chooseServer() {
        if (server != null || tokenOptions.given()) {
            return Optional.of(ServerChoice.choose(
                    dataDir.resolve(), server, user, tokenOptions, transportOptions, System.getenv(), System.in));
        }
        Optional<org.leasesync.client.Account> account;
        try {
            account = org.leasesync.client.AccountService.forThisProcess(dataDir.resolve())
                    .forWindow(Optional.ofNullable(user));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--user needs --server (with a token) or a signed-in account of that " + "user: " + e.getMessage());
        }
        if (account.isEmpty()) {
            if (transportOptions.given()) {
                throw new IllegalArgumentException(
                        "--allow-insecure-http and --ca-file go with --server or a signed-in "
                                + "account; the embedded demo server needs neither");
            }
            return Optional.empty();
        }
        return Optional.of(ServerChoice.choose(
                dataDir.resolve(),
                null,
                account.get().user(),
                tokenOptions,
                transportOptions,
                System.getenv(),
                System.in));
    }

    /** The window options that were given (on the command line or by environment), so they win over settings.json. */
    private java.util.Set<String> given(java.util.Map<String, String> env) {
        java.util.Set<String> given = new java.util.LinkedHashSet<>();
        if (server != null) {
            given.add("--server");
        }
        for (String[] o : new String[][] {
            {"--schedule-interval", "LEASESYNC_SCHEDULE_INTERVAL"},
            {"--foreground-min-interval", "LEASESYNC_FOREGROUND_MIN_INTERVAL"}
        }) {
            boolean onCommandLine = spec != null
                    && spec.commandLine().getParseResult() != null
                    && spec.commandLine().getParseResult().hasMatchedOption(o[0]);
            String fromEnv = env.get(o[1]);
            if (onCommandLine || (fromEnv != null && !fromEnv.isBlank())) {
                given.add(o[0]);
            }
        }
        return given;
    }

    /**
     * What {@link GuiOptions#given()} holds for a start from a signed-in account (the window's
     * {@code StartOptions.ACCOUNT}; the command line names it without importing the window).
     */
    static final String WINDOW_ACCOUNT = "account";

    @Override
    public Integer call() {
        if (options == null) {
            validate();
        }
        if (options.account().isPresent() && options.token().isEmpty()) {
            // read now, not in validation: a locked keyring may ask the user to unlock it
            options = options.withToken(org.leasesync.client.AccountService.forThisProcess(options.dataDir())
                    .token(options.account().get()));
        }
        return gui.apply(options);
    }

    /**
     * Builds the command line with leasesync's error handling: expected failures print one plain
     * line to stderr (details go to the log file), never a stack trace. {@code moreSubcommands} are
     * added before the handlers are installed, so they share them.
     */
    public static CommandLine commandLine(Object command, Object... moreSubcommands) {
        CommandLine cl = new CommandLine(command);
        for (Object sub : moreSubcommands) {
            cl.addSubcommand(sub);
        }
        OptionsBeforeSubcommand.install(cl);
        HelpLayout.install(cl);
        logFolderFooter(cl);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine bad = ex.getCommandLine();
            PrintWriter err = bad.getErr();
            err.println("leasesync: " + UsageErrors.message(ex));
            err.println("Try '" + bad.getCommandSpec().qualifiedName() + " --help' for the options.");
            err.flush();
            return bad.getCommandSpec().exitCodeOnInvalidInput();
        });
        cl.setExecutionExceptionHandler((ex, line, parseResult) -> {
            PrintWriter err = line.getErr();
            if (ex instanceof LeasesyncException || ex instanceof IllegalArgumentException) {
                err.println("leasesync: " + ex.getMessage());
                // the details (cause, stack trace) go to the log file only: the console shows WARN and up
                LoggerFactory.getLogger(LeasesyncCommand.class).info("command failed: {}", ex.getMessage(), ex);
            } else {
                err.println("leasesync: unexpected error: " + ex);
                LoggerFactory.getLogger(LeasesyncCommand.class).error("command failed", ex);
            }
            logFolderLine(line).ifPresent(err::println);
            err.flush();
            return 1;
        });
        cl.setExecutionStrategy(parseResult -> {
            CommandLine.ParseResult last = parseResult;
            while (last.hasSubcommand()) {
                last = last.subcommand();
            }
            if (last != parseResult) {
                OptionsBeforeSubcommand.check(parseResult, last);
            }
            if (CommandLine.printHelpIfRequested(parseResult)) {
                return parseResult.commandSpec().exitCodeOnUsageHelp();
            }
            prepare(last.commandSpec().userObject(), last.commandSpec().commandLine());
            return new CommandLine.RunLast().execute(parseResult);
        });
        return cl;
    }

    /**
     * Every {@code --help} ends with where the log files are: the data directory as {@code
     * --data-dir} would default to it now ($LEASESYNC_DATA_DIR, else the XDG default), as a user
     * reading the help has not chosen one yet.
     */
    private static void logFolderFooter(CommandLine cl) {
        String folder;
        try {
            folder = LoggingSetup.logFolder(org.leasesync.client.DataDirs.resolve(null))
                    .toString();
        } catch (RuntimeException e) {
            folder = "<data dir>/logs"; // a bad $LEASESYNC_DATA_DIR is reported when a command uses it
        }
        String footer = "%nLog files: " + folder.replace("%", "%%") + " (with --data-dir DIR: DIR/logs), "
                + "a file per day and per 10 MB, 7 days kept, shared by every leasesync process of that directory.";
        cl.getCommandSpec().usageMessage().footer(footer);
        for (CommandLine sub : cl.getSubcommands().values()) {
            logFolderFooter(sub);
        }
    }

    /** "details: see the log files in …" for a failure of a command that opened its log files. */
    private static java.util.Optional<String> logFolderLine(CommandLine line) {
        return LoggingSetup.activeLogFolder().map(f -> "leasesync: details are in the log files in " + f);
    }

    /**
     * Before a command runs: its data directory is resolved and, for a command that writes there,
     * its options are validated — all before anything is created, so bad input (exit code 2) leaves
     * the file system untouched. Only then is the data directory created and the log file opened.
     */
    private static void prepare(Object command, CommandLine line) {
        DataDirMixin mixin =
                OptionsBeforeSubcommand.dataDirMixin(line.getCommandSpec()).orElse(null);
        if (mixin == null) {
            return;
        }
        java.nio.file.Path dir;
        try {
            dir = mixin.resolve();
            mixin.openTimeout();
            if (command instanceof WritesDataDir w) {
                w.validate();
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(line, e.getMessage());
        }
        if (!(command instanceof WritesDataDir)) {
            return;
        }
        java.nio.file.Path existing = dir;
        while (existing != null && !java.nio.file.Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing != null && !java.nio.file.Files.isWritable(existing)) {
            throw new ParameterException(
                    line,
                    "cannot use the data directory " + dir + ": "
                            + (existing.equals(dir) ? "it is" : existing + " is")
                            + " not writable; choose another one with "
                            + "--data-dir or LEASESYNC_DATA_DIR, or fix its permissions");
        }
        try {
            LoggingSetup.addFileLog(dir);
        } catch (org.leasesync.lease.StoreException e) {
            throw new ParameterException(line, e.getMessage()); // names the directory and what to do
        } catch (RuntimeException e) {
            throw new ParameterException(line, "cannot use the data directory: " + e.getMessage());
        }
    }
}
