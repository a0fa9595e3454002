/**
 * Where a signed-in account's session token is kept: the desktop's keyring through the freedesktop
 * Secret Service API on the session D-Bus ({@link org.leasesync.keyring.SecretServiceVault}, dbus-java
 * with the API's interfaces declared in {@link org.leasesync.keyring.SecretServiceBus}), or, where no
 * Secret Service answers, an owner-only file in the data directory
 * ({@link org.leasesync.keyring.TokenFile}, made through {@code files} like every file of the data
 * directory). No token is ever logged or put into a message. Where the session bus is
 * ({@link org.leasesync.keyring.SessionBus}) is looked up here for the window's notifications too.
 *
 * <p>May import: the JDK, dbus-java, Jackson, SLF4J, {@code lease} (the exception root),
 * {@code files} and {@code json} (the shared mappers). Nothing else of leasesync: the client
 * composition builds on this package.
 */
package org.leasesync.keyring;
