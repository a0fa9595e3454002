package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.util.Objects;
import org.leasesync.client.ProductVersion;
import org.leasesync.desktop.Messages;

/**
 * What Help ▸ About shows: the product's version, the Java and JavaFX runtimes it runs on, and where
 * this window keeps its data and logs — the facts a bug report needs, in one copyable text.
 *
 * @param version   the build's version ({@link ProductVersion#get()}), e.g. {@code 0.1.0}
 * @param runtime   e.g. {@code Java 17.0.13, JavaFX 21.0.5}
 * @param dataDir   the data directory, absolute
 * @param logFolder the log folder inside it, absolute
 */
record AboutInfo(String version, String runtime, Path dataDir, Path logFolder) {

    AboutInfo {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(runtime, "runtime");
        dataDir = dataDir.toAbsolutePath();
        logFolder = logFolder.toAbsolutePath();
    }

    /** The facts of this process and the folders {@code folders} opens. */
    static AboutInfo of(FolderActions folders) {
        String fx = System.getProperty("javafx.runtime.version", "?");
        return new AboutInfo(
                ProductVersion.get(),
                "Java " + Runtime.version() + ", JavaFX " + fx,
                folders.dataFolder(),
                folders.logsFolder());
    }

    /** The text "Copy details" puts on the clipboard, one fact per line, labelled in the window's language. */
    String details(Messages m) {
        return "leasesync " + version + System.lineSeparator()
                + m.get("about.runtime") + ": " + runtime + System.lineSeparator()
                + m.get("about.dataDir") + ": " + dataDir + System.lineSeparator()
                + m.get("about.logFolder") + ": " + logFolder + System.lineSeparator();
    }
}
