package org.leasesync.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.leasesync.client.DataDirs;
import org.leasesync.store.h2.OpenRetries;
import picocli.CommandLine.Option;

/** The local database options shared by every command: {@code --data-dir} and {@code --db-open-timeout}. */
public final class DataDirMixin {

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Data directory (local database, logs). Default: $LEASESYNC_DATA_DIR, "
                    + "else $XDG_DATA_HOME/leasesync, else ~/.local/share/leasesync.")
    Path dataDir;

    @Option(
            names = "--db-open-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "${env:LEASESYNC_DB_OPEN_TIMEOUT:-40s}",
            description =
                    "How long opening the local database waits for another leasesync process that holds it "
                            + "but does not answer (stopped or hung), 200ms..10m. Default: $LEASESYNC_DB_OPEN_TIMEOUT, else 40s.")
    Duration openTimeout;

    /**
     * The resolved data directory.
     *
     * @throws IllegalArgumentException if it is not a usable directory path (names it)
     */
    public Path resolve() {
        Path p = DataDirs.resolve(dataDir);
        if (Files.exists(p) && !Files.isDirectory(p)) {
            throw new IllegalArgumentException("the data directory " + p
                    + " is a file, not a directory; choose another " + "one with --data-dir or LEASESYNC_DATA_DIR");
        }
        return p;
    }

    /** Whether {@code --data-dir} was given (so commands suggested to the user repeat it). */
    boolean given() {
        return dataDir != null;
    }

    /**
     * The validated open timeout.
     *
     * @throws IllegalArgumentException naming the option and the bad value
     */
    public Duration openTimeout() {
        try {
            return OpenRetries.validateOpenTimeout(openTimeout);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--db-open-timeout (or LEASESYNC_DB_OPEN_TIMEOUT) must be between 200ms "
                    + "and 10m, got " + DurationConverter.format(openTimeout));
        }
    }
}
