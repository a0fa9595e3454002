package org.leasesync.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real desktop keyring for tests, made of real processes from Debian's packages: a private session
 * bus ({@code dbus-daemon} on a socket path) and a {@code gnome-keyring-daemon} serving the Secret
 * Service on it, its login keyring created and unlocked non-interactively with a password on its
 * standard input. {@code secret-tool} reads what leasesync stored, as a user would. Nothing is
 * skipped: a missing program fails the test with the packages to install ({@code .ci/run} installs
 * them).
 *
 * <p>Its own {@code HOME}, {@code XDG_RUNTIME_DIR} and {@code XDG_DATA_HOME} under {@code dir}, so the
 * user's real keyring is never touched. {@link #close()} ends every process it started, by its handle.
 */
public final class KeyringSession implements AutoCloseable {

    /** The programs a keyring session needs, with the Debian package of each. */
    static final Map<String, String> PROGRAMS = new LinkedHashMap<>();

    static {
        PROGRAMS.put("dbus-daemon", "dbus");
        PROGRAMS.put("dbus-send", "dbus");
        PROGRAMS.put("gnome-keyring-daemon", "gnome-keyring");
        PROGRAMS.put("secret-tool", "libsecret-tools");
    }

    private final Path dir;
    private final String busAddress;
    private final Map<String, String> env;
    private final List<Process> processes = new ArrayList<>();

    private KeyringSession(Path dir, String busAddress, Map<String, String> env) {
        this.dir = dir;
        this.busAddress = busAddress;
        this.env = env;
    }

    /**
     * Starts a bus and an unlocked keyring in {@code dir}.
     *
     * @throws AssertionError naming the packages to install when a program is missing, or when the
     *     keyring does not come up
     */
    public static KeyringSession start(Path dir) throws IOException, InterruptedException {
        List<String> missing = new ArrayList<>();
        PROGRAMS.forEach((program, pkg) -> {
            if (DesktopSession.which(program).isEmpty() && !missing.contains(pkg)) {
                missing.add(pkg);
            }
        });
        if (!missing.isEmpty()) {
            throw new AssertionError("the keyring tests need a real session bus and GNOME Keyring; install them: "
                    + "apt-get install " + String.join(" ", missing) + " (.ci/run does)");
        }
        Path home = Files.createDirectories(dir.resolve("home"));
        Path runtime = dir.resolve("run");
        Files.createDirectories(runtime);
        Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwx------"));
        Path bus = runtime.resolve("bus");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("XDG_DATA_HOME", home.resolve(".local/share").toString());
        env.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        env.put("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + bus);
        KeyringSession s = new KeyringSession(dir, "unix:path=" + bus, Map.copyOf(env));
        try {
            s.spawn(
                    "dbus",
                    List.of("dbus-daemon", "--session", "--nofork", "--address=unix:path=" + bus, "--print-address=1"),
                    null);
            s.waitUntil("the session bus listens", () -> Files.exists(bus));
            s.spawn(
                    "gnome-keyring",
                    List.of("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"),
                    "test-keyring-password");
            s.waitUntil(
                    "gnome-keyring serves the Secret Service",
                    () -> s.run(
                                    "dbus-send",
                                    "--session",
                                    "--print-reply",
                                    "--dest=org.freedesktop.DBus",
                                    "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus.NameHasOwner",
                                    "string:org.freedesktop.secrets")
                            .contains("boolean true"));
        } catch (IOException | InterruptedException | RuntimeException | AssertionError e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** The environment of this session ({@code HOME}, {@code XDG_*}, {@code DBUS_SESSION_BUS_ADDRESS}), for child processes. */
    public Map<String, String> env() {
        return env;
    }

    public String busAddress() {
        return busAddress;
    }

    private void spawn(String name, List<String> command, String stdin) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        processes.add(p);
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** Runs a short command in this session; its output (stdout and stderr). */
    public String run(String... command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env);
            Process p = pb.start();
            p.getOutputStream().close();
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

    /** {@code secret-tool lookup service leasesync server URL user NAME}: the stored token, or empty. */
    public String lookup(String server, String user) {
        return run("secret-tool", "lookup", "service", "leasesync", "server", server, "user", user)
                .strip();
    }

    private void waitUntil(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        if (!DesktopSession.waitFor(20_000, condition)) {
            StringBuilder logs = new StringBuilder();
            for (String name : List.of("dbus", "gnome-keyring")) {
                try {
                    logs.append("\n--- ")
                            .append(name)
                            .append(".log\n")
                            .append(Files.readString(dir.resolve(name + ".log")));
                } catch (IOException e) {
                    logs.append("\n(").append(name).append(".log unreadable)");
                }
            }
            throw new AssertionError("timed out waiting until " + what + logs);
        }
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
