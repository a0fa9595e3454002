/**
 * The desktop client's policy, free of any UI toolkit: the status of each key
 * ({@link org.leasesync.desktop.KeyStatus}) and the texts that describe it, the start options and
 * settings file, pause, offline probing, the schedule trigger and trigger gate, start at login,
 * the display check, and the embedded or external server the window uses.
 *
 * <p>May import: {@code client}, {@code lease}, {@code run}, {@code sync}, {@code store},
 * {@code remote}, {@code files} (owner-only files), {@code server} (the embedded server). Never JavaFX, the tray, D-Bus, picocli or
 * {@code cli}.
 */
package org.leasesync.desktop;
