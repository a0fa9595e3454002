package org.leasesync.lease;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The id of the system's monotonic clock ({@link TimeSource#monotonicClockId()}), so that a
 * {@link System#nanoTime()} value stored by one process can be compared with another process's now.
 *
 * <p>On Linux, HotSpot's {@code System.nanoTime()} is the kernel's {@code CLOCK_MONOTONIC}: one
 * clock for every process of one boot, unaffected by wall-clock steps, paused while the machine is
 * suspended. Its id is the boot id ({@code /proc/sys/kernel/random/boot_id}) plus the time
 * namespace's monotonic offset when it has one ({@code /proc/self/timens_offsets}; processes in
 * different time namespaces read different values). Empty — never compared across processes —
 * when any of that is missing (another OS) or when the JVM's {@code nanoTime} is not the kernel's
 * clock: it then exceeds the time since boot ({@code /proc/uptime}, which {@code CLOCK_MONOTONIC}
 * never does), as under {@code faketime}, whose {@code nanoTime} follows the faked wall clock.
 *
 * <p>Computed once; thread-safe; reads three small files the first time.
 */
final class SystemMonotonicClock {

    /** Slack for the comparison with {@code /proc/uptime} (hundredths of a second, read a moment apart). */
    private static final long UPTIME_SLACK_NANOS = 2_000_000_000L;

    private static final class Holder {
        static final Optional<String> ID = detect();
    }

    private SystemMonotonicClock() {}

    /** The id of this JVM's {@code System.nanoTime()} clock, or empty if it is unknown. */
    static Optional<String> id() {
        return Holder.ID;
    }

    private static Optional<String> detect() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.empty();
        }
        try {
            String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII);
            String uptime = Files.readString(Path.of("/proc/uptime"), StandardCharsets.US_ASCII);
            Path offsets = Path.of("/proc/self/timens_offsets");
            String timens = Files.isReadable(offsets) ? Files.readString(offsets, StandardCharsets.US_ASCII) : "";
            return idFrom(bootId, timens, System.nanoTime(), uptimeNanos(uptime));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The id from what the files said.
     *
     * @param bootId the text of {@code /proc/sys/kernel/random/boot_id}
     * @param timensOffsets the text of {@code /proc/self/timens_offsets} ("" when absent)
     * @param nanoTime {@code System.nanoTime()}
     * @param uptimeNanos the first figure of {@code /proc/uptime}, in nanoseconds
     * @return empty if the boot id is blank or {@code nanoTime} cannot be {@code CLOCK_MONOTONIC}
     */
    static Optional<String> idFrom(String bootId, String timensOffsets, long nanoTime, long uptimeNanos) {
        String boot = bootId == null ? "" : bootId.trim();
        if (boot.isEmpty() || nanoTime < 0 || nanoTime > uptimeNanos + UPTIME_SLACK_NANOS) {
            return Optional.empty();
        }
        String offset = monotonicOffset(timensOffsets);
        return Optional.of("linux-monotonic:" + boot + (offset.isEmpty() ? "" : "+" + offset));
    }

    /** "seconds.nanos" of the {@code monotonic} line, "" when absent or zero. */
    private static String monotonicOffset(String timensOffsets) {
        if (timensOffsets == null) {
            return "";
        }
        for (String line : timensOffsets.split("\n", -1)) {
            String[] f = line.trim().split("\\s+", -1);
            if (f.length == 3 && f[0].equals("monotonic")) {
                return f[1].equals("0") && f[2].equals("0") ? "" : f[1] + "." + f[2];
            }
        }
        return "";
    }

    /** The first figure of {@code /proc/uptime} ("12345.67 ...") in nanoseconds. */
    static long uptimeNanos(String uptime) {
        String first = uptime.trim().split("\\s+", -1)[0];
        int dot = first.indexOf('.');
        long seconds = Long.parseLong(dot < 0 ? first : first.substring(0, dot));
        String frac = dot < 0 ? "" : (first.substring(dot + 1) + "000000000").substring(0, 9);
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), frac.isEmpty() ? 0 : Long.parseLong(frac));
    }
}
