/**
 * The system tray: the worst state of the account's keys as an icon with a badge
 * ({@link org.leasesync.desktop.tray.TrayState}), the port the window talks to, and its AWT
 * implementation, which asks the X server for a tray host before it starts AWT.
 *
 * <p>May import: {@code desktop}, AWT, JNA. Never JavaFX.
 */
package org.leasesync.desktop.tray;
