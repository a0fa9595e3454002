package org.leasesync.desktop;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.leasesync.files.OwnerOnlyFiles;
import org.leasesync.lease.LeasesyncException;

/**
 * "Start at login": the XDG autostart entry {@code $XDG_CONFIG_HOME/autostart/leasesync.desktop}
 * (else {@code ~/.config/autostart/leasesync.desktop}), which desktops following the XDG Autostart
 * specification run when the user logs in. The entry starts the app with
 * {@code LEASESYNC_START_HIDDEN=1}, so it opens in the tray (the window opens when there is none).
 *
 * <p>The entry is written atomically and 0600, like every file leasesync writes, though it holds no
 * secret (the launcher's path and one variable): only the user's own session reads it, so no other
 * account needs to, and one rule for every file leaves nothing to reason about case by case.
 *
 * <p>Thread-safe (stateless besides its paths); {@link #enable()} and {@link #disable()} block on
 * a small file write.
 */
public final class Autostart {

    /** The entry's file name. */
    public static final String FILE = "leasesync.desktop";
    /** The environment variable the entry sets; the window starts hidden in the tray when it is 1. */
    public static final String START_HIDDEN_ENV = "LEASESYNC_START_HIDDEN";

    /** The icon's name in the user's icon theme when no installed icon file is next to the launcher. */
    static final String ICON_NAME = "leasesync";

    private final Path entry;
    private final Path themeIcon;
    private final Optional<List<String>> command;

    /**
     * @param configHome the XDG config directory ({@link #configHome})
     * @param dataHome the XDG data directory ({@link #dataHome}), where the icon goes when the app has
     *     no installed icon file (run from the jar)
     * @param command the command line that starts this app, empty when there is none to write
     *     (e.g. started from classes by Maven)
     */
    public Autostart(Path configHome, Path dataHome, Optional<List<String>> command) {
        this.entry = configHome.resolve("autostart").resolve(FILE);
        this.themeIcon = dataHome.resolve("icons/hicolor/256x256/apps").resolve(ICON_NAME + ".png");
        this.command = Objects.requireNonNull(command, "command").map(List::copyOf);
        this.command.ifPresent(c -> {
            if (c.isEmpty() || c.stream().anyMatch(a -> a.indexOf('\n') >= 0 || a.indexOf('\r') >= 0)) {
                throw new IllegalArgumentException("an autostart command needs a program and no line breaks, got " + c);
            }
        });
    }

    /** {@code $XDG_CONFIG_HOME} when it is set to an absolute path (as the specification asks), else {@code ~/.config}. */
    public static Path configHome(Map<String, String> env, String userHome) {
        String xdg = env.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg);
        }
        return Path.of(userHome, ".config");
    }

    /** {@code $XDG_DATA_HOME} when it is set to an absolute path, else {@code ~/.local/share}. */
    public static Path dataHome(Map<String, String> env, String userHome) {
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg);
        }
        return Path.of(userHome, ".local", "share");
    }

    /**
     * The command that starts this app: the jpackage launcher (system property
     * {@code jpackage.app-path}, or the tray launcher beside it, {@link #trayLauncher}), else {@code java -jar leasesync.jar} when running from the jar,
     * else empty; followed by {@code extraArgs}.
     */
    public static Optional<List<String>> launcherCommand(List<String> extraArgs) {
        List<String> cmd = new ArrayList<>();
        String app = System.getProperty("jpackage.app-path");
        if (app != null && !app.isBlank()) {
            // the login starts the tray process (START_HIDDEN_ENV), so its own launcher when there is one
            cmd.add(trayLauncher(Path.of(app)).toString());
        } else {
            try {
                var source = Autostart.class.getProtectionDomain().getCodeSource();
                Path where =
                        source == null ? null : Path.of(source.getLocation().toURI());
                if (where == null || !where.getFileName().toString().endsWith(".jar")) {
                    return Optional.empty();
                }
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.add("-jar");
                cmd.add(where.toAbsolutePath().toString());
            } catch (URISyntaxException | RuntimeException e) {
                return Optional.empty();
            }
        }
        cmd.addAll(extraArgs);
        return Optional.of(cmd);
    }

    /**
     * The app image's launcher for the tray process when there is one beside {@code exe}
     * ({@code bin/leasesync-tray} next to {@code bin/leasesync}, jlink/build.sh): the same program and
     * JVM options without the window's class-data archive, which would cost the tray process more
     * memory than it saves, and with the options of a process that idles for hours; else {@code exe}
     * itself. Blocks on two file lookups.
     */
    public static Path trayLauncher(Path exe) {
        Path tray = exe.resolveSibling(exe.getFileName() + "-tray");
        return Files.isRegularFile(tray) && Files.isExecutable(tray) ? tray : exe;
    }

    /** The entry's path. */
    public Path entry() {
        return entry;
    }

    /** Whether an entry can be written (the command that starts this app is known). */
    public boolean available() {
        return command.isPresent();
    }

    /** Whether the entry exists (the user may also have removed it with their desktop's own tools). */
    public boolean enabled() {
        return Files.isRegularFile(entry);
    }

    /**
     * Writes the entry (replacing an older one).
     *
     * @throws IllegalStateException if {@link #available()} is false
     * @throws LeasesyncException if it cannot be written, naming the file and the reason
     */
    public void enable() {
        List<String> cmd = command.orElseThrow(() -> new IllegalStateException(
                "the command that starts leasesync is not known (run the installed app or leasesync.jar)"));
        try {
            if (!Files.isDirectory(entry.getParent())) {
                // What is missing of ~/.config/autostart is made 0700, as the XDG base directory
                // specification asks; an existing one is the user's and other programs', left as it is.
                OwnerOnlyFiles.directory(entry.getParent());
            }
            OwnerOnlyFiles.writeString(entry, entryText(cmd, icon(cmd)));
        } catch (IOException e) {
            throw new LeasesyncException("could not write " + entry + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes the entry; nothing happens when there is none.
     *
     * @throws LeasesyncException if it cannot be removed
     */
    public void disable() {
        try {
            Files.deleteIfExists(entry);
        } catch (IOException e) {
            throw new LeasesyncException("could not remove " + entry + ": " + e.getMessage(), e);
        }
    }

    /**
     * The entry's {@code Icon=}: the installed app image's own icon file ({@code APP/lib/leasesync.png}
     * beside {@code APP/bin/leasesync}) when there is one, else the app's icon written into the user's
     * icon theme and named, so that a session's list of startup programs shows it either way.
     */
    private String icon(List<String> cmd) throws IOException {
        Path launcher = Path.of(cmd.get(0));
        Path bin = launcher.getParent();
        if (bin != null
                && bin.getFileName() != null
                && bin.getFileName().toString().equals("bin")
                && bin.getParent() != null) {
            Path installed = bin.getParent().resolve("lib").resolve(ICON_NAME + ".png");
            if (Files.isRegularFile(installed)) {
                return installed.toAbsolutePath().toString();
            }
        }
        try (var in = AppIcon.open()) {
            if (in == null) {
                return ICON_NAME;
            }
            Files.createDirectories(themeIcon.getParent());
            Files.copy(in, themeIcon, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return ICON_NAME;
    }

    /** The desktop entry for {@code command} with {@code icon} (an absolute path or a theme icon name). */
    static String entryText(List<String> command, String icon) {
        return "[Desktop Entry]\n"
                + "Type=Application\n"
                + "Name=leasesync\n"
                + "Name[zh_CN]=leasesync\n"
                + "Comment=Keeps your courses, messages and settings in sync in the background\n"
                + "Comment[zh_CN]=在后台同步你的课程、消息和设置\n"
                + "Icon=" + icon + "\n"
                + "Exec=env " + START_HIDDEN_ENV + "=1 " + exec(command) + "\n"
                + "Terminal=false\n"
                + "X-GNOME-Autostart-enabled=true\n";
    }

    /**
     * An {@code Exec} value for {@code args} per the Desktop Entry Specification: an argument with a
     * reserved character is double-quoted, with {@code "}, {@code `}, {@code $} and {@code \} escaped
     * by a backslash inside the quotes; then, as the string-value rule applies before quoting, every
     * backslash is doubled; a {@code %} is written {@code %%} (field codes).
     */
    static String exec(List<String> args) {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            String v = a;
            if (v.isEmpty() || v.chars().anyMatch(c -> " \t\"'\\><~|&;$*?#()`".indexOf(c) >= 0)) {
                StringBuilder q = new StringBuilder("\"");
                for (char c : v.toCharArray()) {
                    if (c == '"' || c == '`' || c == '$' || c == '\\') {
                        q.append('\\');
                    }
                    q.append(c);
                }
                v = q.append('"').toString();
            }
            out.add(v.replace("\\", "\\\\").replace("%", "%%"));
        }
        return String.join(" ", out);
    }
}
