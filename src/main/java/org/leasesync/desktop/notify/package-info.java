/**
 * Desktop notifications: when to notify ({@link org.leasesync.desktop.notify.NotificationPolicy},
 * watched by {@link org.leasesync.desktop.notify.AttentionWatcher}) and how, through the
 * freedesktop notification service on the session D-Bus.
 *
 * <p>May import: {@code desktop}, {@code lease}, {@code run}, {@code store}, {@code keyring} (where the
 * session bus is: one lookup for both users of the bus), dbus-java. Never JavaFX.
 */
package org.leasesync.desktop.notify;
