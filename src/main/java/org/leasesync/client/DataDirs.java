package org.leasesync.client;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the local data lives: {@code --data-dir}, else {@code LEASESYNC_DATA_DIR}, else
 * {@code $XDG_DATA_HOME/leasesync}, else {@code ~/.local/share/leasesync}. Pure; thread-safe.
 */
public final class DataDirs {

    /** Environment variable overriding the data directory. */
    public static final String ENV = "LEASESYNC_DATA_DIR";

    private DataDirs() {}

    /**
     * @param option the {@code --data-dir} value, or null
     * @param env the environment
     * @param userHome the user's home directory
     * @throws IllegalArgumentException if a configured value is blank or not a valid path (names the source)
     */
    public static Path resolve(Path option, Map<String, String> env, String userHome) {
        if (option != null) {
            return option.toAbsolutePath().normalize();
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null) {
            return path(fromEnv, ENV);
        }
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return path(xdg, "XDG_DATA_HOME").resolve("leasesync");
        }
        return Path.of(userHome, ".local", "share", "leasesync")
                .toAbsolutePath()
                .normalize();
    }

    /** Resolves with the real environment and home directory. */
    public static Path resolve(Path option) {
        return resolve(option, System.getenv(), System.getProperty("user.home"));
    }

    private static Path path(String value, String source) {
        if (value.isBlank()) {
            throw new IllegalArgumentException(source + " is set but blank; unset it or give a directory");
        }
        try {
            return Path.of(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(source + "='" + value + "' is not a valid path: " + e.getReason());
        }
    }
}
