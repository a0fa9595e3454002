package org.leasesync.lease;

import java.util.Optional;

/**
 * When an owner's process started, in a form that a wall-clock step cannot change: the start in
 * clock ticks since boot ({@code /proc/PID/stat} field 22), the boot it belongs to
 * ({@code /proc/sys/kernel/random/boot_id}) and the time namespace the ticks were read in (the
 * kernel adds that namespace's boot-time offset to field 22). Written as the third part of an
 * {@link OwnerId}.
 *
 * <p>Why not {@code ProcessHandle.Info.startInstant()}: that is the kernel's boot time ({@code btime}
 * in {@code /proc/stat}) plus the start ticks, and {@code btime} moves whenever the wall clock is
 * stepped (NTP step, manual change), so two processes that read it on either side of a step disagree
 * about the start of every process — and a live owner would look like a recycled pid.
 *
 * <p>Three kinds, told apart by their written form:
 * <ul>
 *   <li>{@link SinceBoot} {@code TICKS@BOOTID@TIMENS} (e.g. {@code 1805146@2f1c…e9@4026531834}):
 *       comparable with another process's start on the same boot and time namespace;</li>
 *   <li>{@link Legacy} — digits only: the epoch-millisecond start that owner ids carried before
 *       (derived from {@code btime}, so never compared: not provable);</li>
 *   <li>{@link #UNKNOWN} {@code 0}: no {@code /proc} (not Linux), nothing provable.</li>
 * </ul>
 *
 * <p>Values are immutable and thread-safe. The readers of {@code /proc} block briefly on the file
 * system and never throw.
 */
public sealed interface ProcessStart {

    /** No process information (not Linux, or {@code /proc} unreadable): never provable. */
    ProcessStart UNKNOWN = new Legacy(0);

    /** The written form (no {@code /}). */
    String asString();

    /**
     * A start time in clock ticks since boot.
     *
     * @param ticks {@code /proc/PID/stat} field 22, &gt;= 0
     * @param bootId the boot id, 32 lower-case hex digits (the dashes of {@code boot_id} removed)
     * @param timeNamespace the inode of {@code /proc/self/ns/time}, or 0 where the kernel has none
     */
    record SinceBoot(long ticks, String bootId, long timeNamespace) implements ProcessStart {

        /** @throws IllegalArgumentException naming the bad field */
        public SinceBoot {
            if (ticks < 0) {
                throw new IllegalArgumentException("process start ticks must be >= 0, got " + ticks);
            }
            if (bootId == null
                    || bootId.length() != 32
                    || !OwnerId.isLowerHex(bootId, 32)) { // no regex: parsed per lease row read
                throw new IllegalArgumentException("boot id must be 32 lower-case hex digits, got '" + bootId + "'");
            }
            if (timeNamespace < 0) {
                throw new IllegalArgumentException("time namespace must be >= 0, got " + timeNamespace);
            }
        }

        @Override
        public String asString() {
            return ticks + "@" + bootId + "@" + timeNamespace;
        }
    }

    /**
     * The old form: epoch milliseconds derived from the kernel's {@code btime} (or 0, unknown). Kept
     * so that rows written by an older version still parse and are written back unchanged; never
     * compared with anything, so an owner in this form is never provably dead (its lease is freed by
     * the TTL observation instead).
     *
     * @param millis &gt;= 0
     */
    record Legacy(long millis) implements ProcessStart {

        /** @throws IllegalArgumentException if negative */
        public Legacy {
            if (millis < 0) {
                throw new IllegalArgumentException("owner processStartMillis must be >= 0, got " + millis);
            }
        }

        @Override
        public String asString() {
            return Long.toString(millis);
        }
    }

    /**
     * Parses the written form.
     *
     * @throws IllegalArgumentException naming the text if it is neither digits nor {@code TICKS@BOOTID@TIMENS}
     */
    static ProcessStart parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("process start is empty");
        }
        String[] p = text.split("@", -1);
        try {
            if (p.length == 1) {
                return new Legacy(Long.parseLong(text));
            }
            if (p.length == 3) {
                return new SinceBoot(Long.parseLong(p[0]), p[1], Long.parseLong(p[2]));
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("process start '" + text + "' is not TICKS@BOOTID@TIMENS or digits", e);
        }
        throw new IllegalArgumentException("process start '" + text + "' is not TICKS@BOOTID@TIMENS or digits");
    }

    /** This process's start, or {@link #UNKNOWN} where {@code /proc} cannot tell. */
    static ProcessStart current() {
        Optional<String> boot = ProcFs.bootId();
        if (boot.isEmpty()) {
            return UNKNOWN;
        }
        return ProcFs.startTicks(ProcessHandle.current().pid())
                .<ProcessStart>map(t -> new SinceBoot(t, boot.get(), ProcFs.timeNamespace()))
                .orElse(UNKNOWN);
    }
}
