/**
 * The H2 file in a data directory: where it is and its URL, the owner-only directory and the H2
 * file system that creates every H2 file owner-only, the read-only check before it is opened for
 * writing, the clean-close marker, the lock file of a dead host, an interrupted first creation,
 * how opening a shared file is retried, and upgrades: the guard that lets one process migrate while
 * the others wait, and the copy taken before, put back when a migration did not finish.
 *
 * <p>May import: the JDK, H2, SLF4J, {@code lease} (its exceptions and owners) and {@code files}
 * (owner-only directories and files). Nothing else of leasesync: {@code store} builds on this
 * package, not the other way round.
 */
package org.leasesync.store.h2;
