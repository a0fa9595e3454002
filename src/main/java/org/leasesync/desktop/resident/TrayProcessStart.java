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
 * image's launcher for the tray, {@link Autostart#trayLauncher}), the same
 * arguments (JVM options included, as the JVM or the app image's launcher got them), the same working
 * directory and environment, plus {@link Resident#ENV}. On Linux the executable is
 * {@code /proc/self/exe} and the arguments {@code /proc/self/cmdline} (NUL-separated, read as UTF-8
 * as the launcher reads them); elsewhere there is no command, and the window stays in the tray.
 */
public final class TrayProcessStart {

    /**
     * The JVM options a tray process started with {@code java} gets before the inherited ones (so one
     * given there wins), the same as the app image's tray launcher has ({@code TRAY_JAVA_OPTIONS} in
     * jlink/config.sh, which says why each is there): it runs for hours doing little, so
     * <ul>
     * <li>the client compiler only: the server compiler's work of its first minutes costs it more
     * memory and CPU than its code gains;
     * <li>no hsperfdata counters, whose sampler wakes a VM thread 20 times a second;
     * <li>the JVM's own timers slowed down: idle monitors are looked for every 10 s instead of 4 times a
     * second, and a safepoint for clean-up is forced once a minute instead of once a second. Both are
     * HotSpot's diagnostic options; with them a bare JVM idles at ~7 CPU-ms a minute instead of ~38
     * (docs/benchmarks.md);
     * <li>the libraries' own timers slowed down: the JDK HTTP server (the embedded demo server) looks for
     * idle connections to close every 60 s instead of every 10 s ({@code sun.net.httpserver.clockTick}),
     * and HikariCP's housekeeper runs every 5 minutes instead of every 30 s. The tray closes its idle
     * database connections itself, so the housekeeper has little to do there.
     * </ul>
     * The serial collector ({@link #SERIAL_GC}, no concurrent threads) with its heap options
     * ({@link #SERIAL_HEAP}) comes too unless the inherited options choose a collector.
     */
    static final List<String> TRAY_JVM = List.of(
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:AsyncDeflationInterval=10000",
            "-XX:GuaranteedSafepointInterval=60000",
            "-Dsun.net.httpserver.clockTick=60000",
            "-Dcom.zaxxer.hikari.housekeeping.periodMs=300000");

    /** The collector of the tray process; two collectors chosen would stop the JVM from starting. */
    static final String SERIAL_GC = "-XX:+UseSerialGC";

    /**
     * The heap that goes with {@link #SERIAL_GC}, as the app image's launcher has it: it starts at
     * 16 MB and gives memory back. Without them the serial collector would keep its default first heap,
     * a 64th of the machine's memory, however little of it the tray process uses.
     */
    static final List<String> SERIAL_HEAP = List.of("-Xms16m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30");

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
            Path launcher = Autostart.trayLauncher(exe);
            args.set(0, launcher.toString());
            if (launcher.getFileName().toString().equals("java")) {
                List<String> tray = new ArrayList<>(TRAY_JVM);
                if (args.stream().noneMatch(a -> a.matches("-XX:[+-]Use\\w*GC"))) {
                    tray.add(SERIAL_GC);
                    tray.addAll(SERIAL_HEAP);
                }
                args.addAll(1, tray); // before the inherited options, so one given there wins
            }
            return Optional.of(List.copyOf(args));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
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
