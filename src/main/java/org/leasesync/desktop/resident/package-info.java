/**
 * leasesync in the tray without its window, in a JVM that never loads JavaFX: the tray icon and
 * menu, the schedule trigger, the icon's state, the offline probe and the notifications
 * ({@link org.leasesync.desktop.resident.ResidentAssembly}); the start that chooses it and opens the
 * window in the same process when asked ({@link org.leasesync.desktop.resident.Resident}); and the
 * start of the tray process by a window that hands it the tray
 * ({@link org.leasesync.desktop.resident.TrayProcessStart}).
 *
 * <p>May import: {@code desktop}, {@code desktop.tray}, {@code desktop.notify}, {@code client},
 * {@code lease}, {@code run}, {@code store}, {@code remote}. Never JavaFX or {@code desktop.fx}: the
 * window is opened through a function the launcher gives.
 */
package org.leasesync.desktop.resident;
