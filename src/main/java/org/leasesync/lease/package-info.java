/**
 * The lease algorithm and its storage SPI: lease keys ({@link org.leasesync.lease.TaskKey} for a
 * user's sync of one scope, {@link org.leasesync.lease.JobKey} for a server job), owners and how a
 * dead owner is proven, the registry that grants, renews, releases and takes over leases with one
 * atomic conditional write each ({@link org.leasesync.lease.TaskRegistry}), the heartbeat
 * ({@link org.leasesync.lease.LeaseKeeper}), fences (epochs) and the lease-lost signal, and time
 * (wall and monotonic) as an injected source. Shared by the client and the server.
 *
 * <p>May import: the JDK only (logging through {@link java.lang.System.Logger}).
 */
package org.leasesync.lease;
