package org.leasesync.desktop;

import java.io.InputStream;

/**
 * The app's icon, one PNG bundled in the jar: the window's icon, the tray's, the notifications'
 * and the autostart entry's all come from it, so they cannot drift apart.
 *
 * <p>Thread-safe (stateless).
 */
public final class AppIcon {

    /** The class-path resource of the icon (a 256×256 RGBA PNG). */
    public static final String RESOURCE = "/org/leasesync/desktop/leasesync.png";

    private AppIcon() {}

    /**
     * Opens the icon's bytes; the caller closes the stream.
     *
     * @return the stream, or null when the resource is missing from the class path (a broken build;
     *         every caller then goes on without an icon)
     */
    public static InputStream open() {
        return AppIcon.class.getResourceAsStream(RESOURCE);
    }
}
