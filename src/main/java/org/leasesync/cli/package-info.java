/**
 * The command line (picocli): {@code sync}, {@code status}, {@code history}, {@code records},
 * {@code edit}, {@code outbox}, {@code resolve}, {@code serve}, {@code users} (the server's
 * accounts) and the options they share.
 *
 * <p>May import: everything but {@code desktop}.
 */
package org.leasesync.cli;
