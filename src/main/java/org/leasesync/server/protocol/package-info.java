/**
 * The wire values of sync protocol v1 as the server reads and writes them: errors with their
 * machine codes, headers, cursors, scope names, path segments, push requests and outcomes, and the
 * server's one configured JSON mapper.
 *
 * <p>May import: the JDK, Jackson and {@code org.leasesync.protocol} (the record limits it shares with
 * the client). Nothing else of leasesync.
 */
package org.leasesync.server.protocol;
