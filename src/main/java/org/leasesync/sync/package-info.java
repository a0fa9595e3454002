/**
 * One sync run of one task key: the worker (pull, then push, then done), its stages with their
 * checkpoints, the outbox and the query-before-retry of an ambiguous push, and the ports it needs
 * ({@link org.leasesync.sync.SyncRemote} for the server, {@link org.leasesync.sync.LocalData} for
 * the local copy); the background triggers' "synced moments ago" rule.
 *
 * <p>May import: the JDK, {@code lease}, {@code run} and {@code protocol} (the record limits). Never JDBC, HTTP, JSON or a UI toolkit.
 */
package org.leasesync.sync;
