package org.leasesync.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real desktop session for tests, made of real processes from Debian's packages: an X server
 * ({@code Xvfb}) on a free display number, a window manager ({@code openbox}), optionally an XEmbed
 * system tray ({@code trayer}), a session bus ({@code dbus-daemon} on a socket path) and a
 * notification daemon ({@code dunst}, whose {@code dunstctl} says what it shows). Nothing is
 * skipped: a missing program fails the test with the packages to install ({@code .ci/run} installs
 * them).
 *
 * <p>Independent of the test JVM's own display: the UI tests may run headless (Monocle) while
 * this session serves child processes and the X tools. {@link #close()} ends every process it
 * started, by its handle.
 */
public final class DesktopSession implements AutoCloseable {

    /** The programs a session needs, with the Debian package of each. */
    static final Map<String, String> PROGRAMS = new LinkedHashMap<>();

    static {
        PROGRAMS.put("Xvfb", "xvfb");
        PROGRAMS.put("openbox", "openbox");
        PROGRAMS.put("trayer", "trayer");
        PROGRAMS.put("dbus-daemon", "dbus");
        PROGRAMS.put("dbus-monitor", "dbus");
        PROGRAMS.put("dunst", "dunst");
        PROGRAMS.put("dunstctl", "dunst");
        PROGRAMS.put("xdotool", "xdotool");
        PROGRAMS.put("wmctrl", "wmctrl");
        PROGRAMS.put("xwininfo", "x11-utils");
        PROGRAMS.put("xprop", "x11-utils");
        PROGRAMS.put("import", "imagemagick");
    }

    private final Path dir;
    private final int display;
    private final String busAddress;
    private final List<Process> processes = new ArrayList<>();
    private boolean panel;
    private Process trayer;
    private int trayStarts;

    private DesktopSession(Path dir, int display, String busAddress) {
        this.dir = dir;
        this.display = display;
        this.busAddress = busAddress;
    }

    /**
     * Starts a session in {@code dir} (its logs, the bus socket and dunst's configuration go there).
     *
     * @param tray with an XEmbed tray host ({@code trayer}); without one the desktop has no tray
     * @throws AssertionError naming the packages to install when a program is missing
     */
    public static DesktopSession start(Path dir, boolean tray) throws IOException, InterruptedException {
        return start(dir, tray, "1280x800", false);
    }

    /**
     * Like {@link #start(Path, boolean)} on a screen of {@code screen} pixels ({@code "1366x768"});
     * with {@code panel}, the tray is a panel along the bottom edge that reserves its strip (a
     * partial strut), so the work area is the screen less 24 px, as on a laptop with a taskbar.
     */
    public static DesktopSession start(Path dir, boolean tray, String screen, boolean panel)
            throws IOException, InterruptedException {
        List<String> missing = new ArrayList<>();
        PROGRAMS.forEach((program, pkg) -> {
            if (which(program).isEmpty() && !missing.contains(pkg)) {
                missing.add(pkg);
            }
        });
        if (!missing.isEmpty()) {
            throw new AssertionError(
                    "the desktop tests need real X, tray, bus and notification programs; install them: "
                            + "apt-get install " + String.join(" ", missing) + " (.ci/run does)");
        }
        Files.createDirectories(dir);
        Process xvfb = null;
        int display = -1;
        int start = 400 + ThreadLocalRandom.current().nextInt(500);
        for (int n = start; n < start + 60 && xvfb == null; n++) {
            if (Files.exists(Path.of("/tmp/.X11-unix/X" + n)) || Files.exists(Path.of("/tmp/.X" + n + "-lock"))) {
                continue;
            }
            Process p = new ProcessBuilder(
                            "Xvfb", ":" + n, "-screen", "0", screen + "x24", "-nolisten", "tcp", "-noreset")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("xvfb-" + n + ".log").toFile())
                    .start();
            int display0 = n;
            // ready when a client can connect (the socket file alone comes a moment earlier)
            if (waitFor(
                            15_000,
                            () -> !p.isAlive()
                                    || Files.exists(Path.of("/tmp/.X11-unix/X" + display0))
                                            && exitsZero(Map.of("DISPLAY", ":" + display0), "xwininfo", "-root"))
                    && p.isAlive()) {
                xvfb = p;
                display = n;
            } else {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS); // taken meanwhile: try the next number
            }
        }
        if (xvfb == null) {
            throw new AssertionError("no free X display between :" + start + " and :" + (start + 59));
        }
        Path bus = dir.resolve("bus");
        DesktopSession s = new DesktopSession(dir, display, "unix:path=" + bus);
        s.panel = panel;
        s.processes.add(xvfb);
        try {
            s.spawn("openbox", List.of("openbox"));
            s.waitUntil(
                    "openbox manages the display",
                    () -> s.run("xprop", "-root", "_NET_SUPPORTING_WM_CHECK").contains("window id"));
            if (tray) {
                s.startTray();
            }
            s.spawn(
                    "dbus",
                    List.of("dbus-daemon", "--session", "--nofork", "--address=" + s.busAddress, "--print-address=1"));
            s.waitUntil("the session bus listens", () -> Files.exists(bus));
            Files.writeString(dir.resolve("dunstrc"), """
                    [global]
                        origin = top-right
                        offset = 10x40
                        width = 420
                        font = DejaVu Sans 10
                        frame_width = 1
                        frame_color = "#8b949e"
                        mouse_left_click = do_action, close_current
                        mouse_middle_click = close_current
                        mouse_right_click = close_current
                        show_indicators = no
                    [urgency_normal]
                        background = "#24292f"
                        foreground = "#ffffff"
                        timeout = 0
                    [urgency_critical]
                        background = "#24292f"
                        foreground = "#ffffff"
                        frame_color = "#d4a72c"
                        timeout = 0
                    """);
            s.spawn("dunst", List.of("dunst", "-config", dir.resolve("dunstrc").toString()));
            s.waitUntil(
                    "dunst serves notifications",
                    () -> s.run("dunstctl", "count", "displayed").strip().matches("\\d+"));
        } catch (IOException | InterruptedException | RuntimeException | AssertionError e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** Starts the tray host ({@code trayer}) and waits until it owns the tray; see {@link #killTray()}. */
    public void startTray() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                "trayer",
                "--edge",
                panel ? "bottom" : "top",
                "--align",
                "right",
                "--widthtype",
                "request",
                "--height",
                "24",
                "--SetDockType",
                "true",
                "--transparent",
                "false",
                "--tint",
                "0x30363d"));
        if (panel) {
            cmd.addAll(List.of("--SetPartialStrut", "true"));
        }
        trayer = spawn("trayer-" + (++trayStarts), cmd);
        waitUntil(
                "trayer owns the tray",
                () -> run("xwininfo", "-root", "-tree").contains("\"panel\": (\"panel\" \"trayer\")"));
    }

    /** Ends the tray host with SIGKILL, as a crashing panel, and waits until its panel is gone. */
    public void killTray() throws InterruptedException {
        Process p = trayer;
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        processes.remove(p);
        waitUntil(
                "trayer's panel is gone",
                () -> !run("xwininfo", "-root", "-tree").contains("\"panel\": (\"panel\" \"trayer\")"));
    }

    /** The window id of the tray host's panel, if one runs. */
    public Optional<String> trayPanel() {
        for (String line : run("xwininfo", "-root", "-tree").split("\n")) {
            if (line.contains("\"panel\": (\"panel\" \"trayer\")")) {
                return Optional.of(line.strip().split("\\s+")[0]);
            }
        }
        return Optional.empty();
    }

    /**
     * {@code DISPLAY} and {@code DBUS_SESSION_BUS_ADDRESS} of this session, for child processes, and the
     * tray handover turned off.
     */
    public Map<String, String> env() {
        // A window closed to the tray stays in its process: a test about the tray handover sets its own delay.
        return Map.of(
                "DISPLAY",
                ":" + display,
                "DBUS_SESSION_BUS_ADDRESS",
                busAddress,
                "LEASESYNC_TRAY_HANDOVER_AFTER",
                "off");
    }

    public String busAddress() {
        return busAddress;
    }

    public int display() {
        return display;
    }

    /** Starts a long-running process in this session (ended by {@link #close()}); its output goes to {@code <name>.log}. */
    public Process spawn(String name, List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        pb.environment().putAll(env());
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    /**
     * Like {@link #spawn(String, List)}, with {@code env} added to the session's and {@code stdin}
     * written to the process's standard input, then closed (a keyring daemon's password, say).
     */
    public Process spawn(String name, List<String> command, Map<String, String> env, String stdin) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        pb.environment().putAll(env());
        pb.environment().putAll(env);
        Process p = pb.start();
        processes.add(p);
        try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        return p;
    }

    /**
     * Runs a short command in this session and returns its output (stdout and stderr).
     *
     * @throws IllegalStateException if it does not end within 20 s
     */
    public String run(String... command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env());
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not end within 20 s");
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Like {@link #run}, failing the test unless the command exits 0. */
    public String check(String... command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env());
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new AssertionError(
                        String.join(" ", command) + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The ids of the visible windows whose name matches {@code regex} (xdotool's search). */
    public List<String> visibleWindows(String regex) {
        String out = run("xdotool", "search", "--onlyvisible", "--name", regex).strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    /** A window's geometry on the screen: x, y, width, height. */
    public int[] geometry(String window) {
        String out = check("xdotool", "getwindowgeometry", "--shell", window);
        Map<String, Integer> v = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.split("=", 2);
            if (kv.length == 2 && kv[1].strip().matches("-?\\d+")) {
                v.put(kv[0].strip(), Integer.parseInt(kv[1].strip()));
            }
        }
        return new int[] {v.get("X"), v.get("Y"), v.get("WIDTH"), v.get("HEIGHT")};
    }

    /** Saves the screen, or the rectangle {x, y, width, height} of it, as a PNG. */
    public void screenshot(Path png, int... crop) {
        if (crop.length == 4) {
            check(
                    "import",
                    "-window",
                    "root",
                    "-crop",
                    crop[2] + "x" + crop[3] + "+" + crop[0] + "+" + crop[1],
                    "+repage",
                    png.toString());
        } else {
            check("import", "-window", "root", png.toString());
        }
    }

    /**
     * Waits until {@code condition} holds.
     *
     * @throws AssertionError naming {@code what} after 30 s
     */
    public void waitUntil(String what, BooleanSupplier condition) throws InterruptedException {
        if (!waitFor(30_000, condition)) {
            throw new AssertionError("timed out waiting until " + what + " (display :" + display + ")" + logs());
        }
    }

    /** The end of every log of the session's processes, for a failure message. */
    private String logs() {
        StringBuilder sb = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                String text = Files.readString(f);
                sb.append("\n--- ")
                        .append(f.getFileName())
                        .append(" (last 600 chars)\n")
                        .append(text.substring(Math.max(0, text.length() - 600)));
            }
        } catch (IOException e) {
            sb.append("\n(logs unreadable: ").append(e.getMessage()).append(')');
        }
        return sb.toString();
    }

    private static boolean exitsZero(Map<String, String> env, String... command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.environment().putAll(env);
            Process p = pb.start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Copies the session's logs to {@code to} (kept for diagnosis after the temp directory is gone). */
    public void keepLogs(Path to) {
        try (var files = Files.list(dir)) {
            Files.createDirectories(to);
            for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // diagnosis only
        }
    }

    static boolean waitFor(long millis, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < end) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(100);
        }
        return condition.getAsBoolean();
    }

    static Optional<Path> which(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, program);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Ends every process of the session, newest first (politely, then by force). */
    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            Process p = processes.get(i);
            p.destroy();
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        processes.clear();
    }
}
