/**
 * The lease algorithm and its storage SPI: lease keys ({@link org.leasesync.lease.TaskKey} for a
 * user's sync of one scope, {@link org.leasesync.lease.JobKey} for a server job), owners and how a
 * dead owner is proven, the registry that grants, renews, releases and takes over leases with one
 * atomic conditional write each ({@link org.leasesync.lease.TaskRegistry}), the heartbeat
 * ({@link org.leasesync.lease.LeaseKeeper}), fences (epochs) and the lease-lost signal, and time
 * (wall and monotonic) as an injected source. Shared by the client and the server.
 *
 * <p>Nullness, here and in {@code run} (JSpecify, checked by NullAway in the build): every type is
 * non-null unless marked {@link org.jspecify.annotations.Nullable}, and such a mark says null is a
 * real value there, documented where it is used (a lease-lost detail, a free key's owner text). A
 * public method whose result may be absent returns {@link java.util.Optional}, not null; values
 * check their non-null arguments in their constructors.
 *
 * <p>May import: the JDK only (logging through {@link java.lang.System.Logger}), and JSpecify's
 * nullness annotations.
 */
@NullMarked
package org.leasesync.lease;

import org.jspecify.annotations.NullMarked;
