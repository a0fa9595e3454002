package org.leasesync.desktop;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Opens a folder in the desktop's file manager. Blocks while the desktop starts the program: call it
 * off the FX thread.
 */
@FunctionalInterface
public interface FolderOpener {

    /**
     * @throws UnsupportedOperationException if this desktop has no way to open folders
     * @throws IOException if the desktop found no program for folders, or it failed to start
     */
    void open(Path folder) throws IOException;

    /** {@link java.awt.Desktop#open}: the desktop's own handler for folders (its file manager). */
    FolderOpener DESKTOP = folder -> {
        if (java.awt.GraphicsEnvironment.isHeadless()
                || !java.awt.Desktop.isDesktopSupported()
                || !java.awt.Desktop.getDesktop().isSupported(java.awt.Desktop.Action.OPEN)) {
            throw new UnsupportedOperationException("this desktop offers no program to open folders");
        }
        java.awt.Desktop.getDesktop().open(folder.toFile());
    };
}
