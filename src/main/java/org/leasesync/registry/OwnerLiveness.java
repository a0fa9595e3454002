package org.leasesync.registry;

import java.util.Optional;

/**
 * Decides whether an owner is provably dead. "Not provable" is the safe answer: a live but slow
 * owner must never be declared dead (design.md invariant 3).
 *
 * <p>Implementations must be thread-safe and must not block for long.
 */
@FunctionalInterface
public interface OwnerLiveness {

    /**
     * @return true only if {@code owner} certainly no longer runs (e.g. same host and its process
     *     is gone or its pid now belongs to a process with another start time); false when alive or
     *     when that cannot be proven (another host, missing process information)
     */
    boolean isProvablyDead(OwnerId owner);

    /** Never proves anything dead: leases expire only by TTL. */
    static OwnerLiveness neverProvable() {
        return owner -> false;
    }

    /**
     * Uses the operating system's process table for owners on this host ({@link ProcessHandle}).
     *
     * @param localHost this machine's host name as written into owner ids
     */
    static OwnerLiveness processTable(String localHost) {
        return owner -> {
            // Only when the owner's machine string names this host AND this pid namespace
            // (OwnerId.localMachine) can its pid be looked up here; anything else is not provable.
            if (!localHost.contains(":pidns") || !owner.host().equals(localHost) || owner.processStartMillis() == 0) {
                return false;
            }
            Optional<ProcessHandle> p = ProcessHandle.of(owner.pid());
            if (p.isEmpty() || !p.get().isAlive()) {
                return true;
            }
            Optional<java.time.Instant> start = p.get().info().startInstant();
            // same pid, different start time: the pid was recycled, the owner is gone
            return start.isPresent() && Math.abs(start.get().toEpochMilli() - owner.processStartMillis()) > 1_000;
        };
    }
}
