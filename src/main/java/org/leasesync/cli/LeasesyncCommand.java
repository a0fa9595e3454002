package org.leasesync.cli;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.leasesync.registry.LeasesyncException;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The {@code leasesync} command: with no subcommand it opens the desktop window; with one it runs
 * the CLI. Exit codes: 0 success, 1 failure, 2 usage error (plus the codes a subcommand documents).
 */
@Command(name = "leasesync", mixinStandardHelpOptions = true, version = "leasesync 0.1.0",
        description = {"A desktop sync client that never runs the same sync task twice at once.",
                "Without a subcommand: opens the window (embedded demo server unless --server is given)."},
        subcommands = {SyncCommand.class, EditCommand.class, RecordsCommand.class, ServeCommand.class, StatusCommand.class,
                HistoryCommand.class, CommandLine.HelpCommand.class})
public final class LeasesyncCommand implements Callable<Integer>, WritesDataDir {

    @Mixin
    DataDirMixin dataDir;

    @Option(names = "--server", paramLabel = "URL", description = "Sync server base URL, e.g. http://127.0.0.1:8787. "
            + "Default: start the embedded reference server with demo data and sign in as alice.")
    String server;

    @Option(names = "--user", paramLabel = "USER", description = "User to sign in as (with --server).")
    String user;

    @Option(names = "--token", paramLabel = "TOKEN", description = "The user's bearer token (with --server). "
            + "Default: $LEASESYNC_TOKEN.", defaultValue = "${env:LEASESYNC_TOKEN}")
    String token;

    @Mixin
    RegistryOptions registryOptions;

    @Mixin
    HttpOptions httpOptions;

    @Option(names = "--schedule-interval", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_SCHEDULE_INTERVAL:-5m}",
            description = "Timer trigger interval (±10%% jitter). Default: $LEASESYNC_SCHEDULE_INTERVAL, else 5m.")
    java.time.Duration scheduleInterval;

    @Option(names = "--foreground-min-interval", paramLabel = "DURATION", converter = DurationConverter.class,
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

    @Override
    public Integer call() {
        if (server != null && (user == null || token == null || token.isBlank())) {
            throw new ParameterException(spec.commandLine(), "--server needs --user and --token (or LEASESYNC_TOKEN)");
        }
        if (user != null) {
            try {
                org.leasesync.remote.HttpSyncRemote.checkProtocolUserId(user);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        if (server == null && user != null) {
            throw new ParameterException(spec.commandLine(), "--user needs --server (the embedded server signs in as alice)");
        }
        if (scheduleInterval.compareTo(java.time.Duration.ofSeconds(1)) < 0) {
            throw new ParameterException(spec.commandLine(), "--schedule-interval must be at least 1s, got "
                    + DurationConverter.format(scheduleInterval));
        }
        try {
            java.time.Duration ttl = registryOptions.leaseTtl();
            if (httpOptions.settings().call().compareTo(ttl.multipliedBy(9).dividedBy(10)) >= 0) {
                throw new IllegalArgumentException("--call-timeout (" + DurationConverter.format(httpOptions.settings().call())
                        + ") must be shorter than 90% of --lease-ttl (" + DurationConverter.format(ttl) + ")");
            }
            return gui.apply(new GuiOptions(dataDir.resolve(), Optional.ofNullable(server), Optional.ofNullable(user),
                    Optional.ofNullable(token).filter(t -> !t.isBlank()), registryOptions.leaseTtl(),
                    httpOptions.settings(), scheduleInterval, foregroundMinInterval, dataDir.openTimeout()));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * Builds the command line with leasesync's error handling: expected failures print one plain
     * line to stderr (details go to the log file), never a stack trace.
     */
    public static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine bad = ex.getCommandLine();
            PrintWriter err = bad.getErr();
            err.println("leasesync: " + ex.getMessage());
            err.println("Try '" + bad.getCommandSpec().qualifiedName() + " --help' for the options.");
            err.flush();
            return bad.getCommandSpec().exitCodeOnInvalidInput();
        });
        cl.setExecutionExceptionHandler((ex, line, parseResult) -> {
            PrintWriter err = line.getErr();
            if (ex instanceof LeasesyncException || ex instanceof IllegalArgumentException) {
                err.println("leasesync: " + ex.getMessage());
                LoggerFactory.getLogger(LeasesyncCommand.class).debug("command failed", ex);
            } else {
                err.println("leasesync: unexpected error: " + ex + " (see the log file for details)");
                LoggerFactory.getLogger(LeasesyncCommand.class).error("command failed", ex);
            }
            err.flush();
            return 1;
        });
        cl.setExecutionStrategy(parseResult -> {
            CommandLine.ParseResult last = parseResult;
            while (last.hasSubcommand()) {
                last = last.subcommand();
            }
            if (CommandLine.printHelpIfRequested(parseResult)) {
                return parseResult.commandSpec().exitCodeOnUsageHelp();
            }
            Object user = last.commandSpec().userObject();
            DataDirMixin mixin = user instanceof WritesDataDir ? findDataDir(user) : null;
            if (mixin != null) {
                try {
                    LoggingSetup.addFileLog(mixin.resolve());
                } catch (RuntimeException e) {
                    throw new ParameterException(last.commandSpec().commandLine(),
                            "cannot use the data directory: " + e.getMessage());
                }
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        return cl;
    }

    private static DataDirMixin findDataDir(Object command) {
        if (command == null) {
            return null;
        }
        for (Class<?> c = command.getClass(); c != null; c = c.getSuperclass()) {
            for (var f : c.getDeclaredFields()) {
                if (f.getType() == DataDirMixin.class) {
                    try {
                        f.setAccessible(true);
                        return (DataDirMixin) f.get(command);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        return null;
                    }
                }
            }
        }
        return null;
    }
}
