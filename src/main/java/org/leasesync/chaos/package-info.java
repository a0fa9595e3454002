/**
 * The chaos harness: real server and client processes driven through seeded rounds of kills,
 * pauses, clock faults and server faults, and the checker that proves the invariants held (no
 * overlapping runs, no duplicate or lost edits, no stuck keys, no cross-user writes, no stolen
 * leases); the same for a cluster of server instances on one database.
 *
 * <p>May import: {@code client}, {@code lease}, {@code run}, {@code sync}, {@code store},
 * {@code remote}, {@code server.jobs}; it starts servers as processes. Never {@code desktop}.
 */
package org.leasesync.chaos;
