/**
 * Directories and files that only their owner can reach: the one way every writer — the client's H2
 * file layer, the log file, the window's settings and the embedded server's files, start at login,
 * the signed-in accounts and the token file, and the sync server's data dir — makes a directory
 * (0700), writes a file atomically (0600), or tightens what an earlier version or the user's own
 * {@code mkdir} left wider, whatever the process umask.
 *
 * <p>It sits below every package that writes, so that there is exactly one implementation: the
 * lowest of them, {@code store.h2}, may import only the JDK, H2, SLF4J and {@code lease}, so this
 * package may import nothing but the JDK (no logging either: it reports through exceptions).
 *
 * <p>May import: the JDK only.
 */
package org.leasesync.files;
