package org.leasesync.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --data-dir} option shared by every command. */
public final class DataDirMixin {

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Data directory (local database, logs). Default: $LEASESYNC_DATA_DIR, "
                    + "else $XDG_DATA_HOME/leasesync, else ~/.local/share/leasesync.")
    Path dataDir;

    /** The resolved data directory. */
    public Path resolve() {
        Path p = DataDirs.resolve(dataDir);
        if (java.nio.file.Files.exists(p) && !java.nio.file.Files.isDirectory(p)) {
            throw new IllegalArgumentException("the data directory " + p + " is a file, not a directory; choose another "
                    + "one with --data-dir or LEASESYNC_DATA_DIR");
        }
        return p;
    }
}
