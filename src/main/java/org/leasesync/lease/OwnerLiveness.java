package org.leasesync.lease;

import java.util.Optional;

/**
 * Decides whether an owner is provably dead. "Not provable" is the safe answer: a live but slow
 * owner must never be declared dead (invariant 3, time: docs/architecture.md).
 *
 * <p>Implementations must be thread-safe and must not block for long.
 */
@FunctionalInterface
public interface OwnerLiveness {

    /**
     * Whether {@code owner} is proven dead.
     *
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
     * Uses Linux's process table ({@code /proc}) for owners on this machine. An owner is provably
     * dead only when all of these hold:
     * <ol>
     *   <li>its machine string is this machine's and names a pid namespace ({@code host:pidnsN},
     *       {@link OwnerId#localMachine()}), so its pid means the same process here;</li>
     *   <li>its start is {@link ProcessStart.SinceBoot} of this boot (same boot id) and this time
     *       namespace — an owner of an earlier boot, of another machine with the same name, or in
     *       the earlier millisecond form ({@link ProcessStart.Legacy}) is not provable;</li>
     *   <li>its pid has no process now, or the process with that pid started at another tick
     *       ({@code /proc/PID/stat} field 22): the pid was recycled.</li>
     * </ol>
     * Start times are compared in clock ticks since boot, never through the wall clock, so a clock
     * step (which moves the kernel's {@code btime}) never makes a live owner look dead. Without
     * {@code /proc} (not Linux) nothing is provable.
     *
     * <p>Thread-safe; each call reads one {@code /proc} file.
     *
     * @param localHost this machine's host name as written into owner ids ({@link OwnerId#localMachine()})
     */
    static OwnerLiveness processTable(String localHost) {
        java.util.Objects.requireNonNull(localHost, "localHost");
        ProcessStart here = ProcessStart.current();
        if (!(here instanceof ProcessStart.SinceBoot self) || !localHost.contains(":pidns")) {
            return neverProvable();
        }
        return owner -> {
            if (!owner.host().equals(localHost)
                    || !(owner.start() instanceof ProcessStart.SinceBoot start)
                    || !start.bootId().equals(self.bootId())
                    || start.timeNamespace() != self.timeNamespace()) {
                return false;
            }
            Optional<Long> ticks = ProcFs.startTicks(owner.pid());
            if (ticks.isEmpty()) {
                return ProcFs.isAbsent(owner.pid()); // gone; an unreadable entry proves nothing
            }
            return ticks.get() != start.ticks(); // same pid, another start: recycled, the owner is gone
        };
    }
}
