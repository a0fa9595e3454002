package org.leasesync.desktop.resident;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.leasesync.desktop.Autostart;

/**
 * Starts this program again as the tray process ({@link Resident}): the same executable (or the app
 * image's launcher for the tray, {@link #trayLauncher}), the same
 * arguments (JVM options included, as the JVM or the app image's launcher got them), the same working
 * directory and environment, plus {@link Resident#ENV}. On Linux the executable is
 * {@code /proc/self/exe} and the arguments {@code /proc/self/cmdline} (NUL-separated, read as UTF-8
 * as the launcher reads them); elsewhere there is no command, and the window stays in the tray.
 */
public final class TrayProcessStart {

    /**
     * The tray process runs the client compiler only: it runs for hours doing little, and the server
     * compiler's work of its first minutes costs it more memory and CPU than its code gains
     * (docs/benchmarks.md). The app image's tray launcher has it in its options (jlink/config.sh).
     */
    static final String TRAY_JIT = "-XX:TieredStopAtLevel=1";

    private TrayProcessStart() {}

    /**
     * This process's command line under {@code proc} (e.g. {@code /proc/self}): the executable's
     * absolute path, then its arguments. Blocks on two small reads.
     *
     * @return empty when either file cannot be read (not Linux, or a restricted {@code /proc})
     */
    public static Optional<List<String>> command(Path proc) {
        try {
            Path exe = Files.readSymbolicLink(proc.resolve("exe"));
            String raw = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
            List<String> args = new ArrayList<>(List.of(raw.split("\0", -1)));
            if (!args.isEmpty() && args.get(args.size() - 1).isEmpty()) {
                args.remove(args.size() - 1); // the NUL that ends the last argument
            }
            if (args.isEmpty()) {
                return Optional.empty();
            }
            Path launcher = trayLauncher(exe);
            args.set(0, launcher.toString());
            if (launcher.getFileName().toString().equals("java")) {
                args.add(1, TRAY_JIT); // before the inherited options, so one given there wins
            }
            return Optional.of(List.copyOf(args));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    /**
     * The app image's launcher for the tray process when there is one beside {@code exe}
     * ({@code bin/leasesync-tray} next to {@code bin/leasesync}, jlink/build.sh): the same program and
     * JVM options without the window's class-data archive, which would cost the tray process more
     * memory than it saves; else {@code exe} itself.
     */
    static Path trayLauncher(Path exe) {
        Path tray = exe.resolveSibling(exe.getFileName() + "-tray");
        return Files.isRegularFile(tray) && Files.isExecutable(tray) ? tray : exe;
    }

    /**
     * The tray process's environment: this one's, plus {@link Resident#ENV} and the account, without
     * the autostart's start-hidden flag and without the app image launcher's own variables
     * ({@code _JPACKAGE_…}): jpackage's Linux launcher marks the environment of the JVM it starts, and a
     * launcher that finds the mark takes its arguments for the JVM's, so a child started with it would
     * refuse {@code --data-dir} as an unknown JVM option.
     *
     * @param user the account the window showed; null for the first one
     * @param resident the tray process; false: the window (another launch asked for it meanwhile)
     * @return a new map
     */
    static Map<String, String> environment(Map<String, String> base, String user, boolean resident) {
        Map<String, String> env = new java.util.HashMap<>(base);
        env.keySet().removeIf(k -> k.startsWith("_JPACKAGE_"));
        if (resident) {
            env.put(Resident.ENV, "1");
        } else {
            env.remove(Resident.ENV);
        }
        env.remove(Autostart.START_HIDDEN_ENV); // the login's one sync was that process's, not this one's
        if (user == null) {
            env.remove(Resident.ACCOUNT_ENV);
        } else {
            env.put(Resident.ACCOUNT_ENV, user);
        }
        return env;
    }

    /**
     * Starts {@code command} as the tray process showing {@code user}: output and errors go where
     * this process's go, input comes from nowhere. Returns once the process is started; it outlives
     * this one.
     *
     * @param user the account the window showed; null for the first one
     * @param resident the tray process; false: this program with its window, for a launch that asked
     *     for the window while the tray was being handed over
     * @throws IOException when the process cannot be started
     */
    public static Process start(List<String> command, String user, boolean resident) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = pb.environment();
        Map<String, String> wanted = environment(env, user, resident);
        env.clear();
        env.putAll(wanted);
        return pb.start();
    }
}
