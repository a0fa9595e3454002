package org.leasesync.lease;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads what the registry needs from Linux's {@code /proc}: the boot id, this process's time
 * namespace, and a process's start in clock ticks since boot. Every method answers empty (or false,
 * or 0) rather than throwing; each blocks briefly on the file system. Thread-safe (stateless).
 */
final class ProcFs {

    private ProcFs() {}

    /** {@code /proc/sys/kernel/random/boot_id} without dashes, or empty. */
    static Optional<String> bootId() {
        try {
            String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"))
                    .trim()
                    .replace("-", "");
            return id.matches("[0-9a-f]{32}") ? Optional.of(id) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The inode of this process's time namespace, or 0 where the kernel has none (before 5.6). */
    static long timeNamespace() {
        try {
            String target =
                    Files.readSymbolicLink(Path.of("/proc/self/ns/time")).toString(); // time:[4026531834]
            String digits = target.replaceAll("[^0-9]", "");
            return digits.isEmpty() ? 0 : Long.parseLong(digits);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Field 22 of {@code /proc/PID/stat} (start in clock ticks since boot), or empty. */
    static Optional<Long> startTicks(long pid) {
        try {
            return Optional.of(parseStartTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether {@code pid} has no process in this pid namespace: {@code /proc} is there but
     * {@code /proc/PID} is not. Anything else (no {@code /proc}, an unreadable entry) is not an answer.
     */
    static boolean isAbsent(long pid) {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return false;
        }
        try {
            Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return false;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Field 22 of a {@code /proc/PID/stat} line. The second field is the command name in
     * parentheses and may itself contain spaces and {@code )}, so the fields are counted from the
     * text after the LAST {@code )}: there the state is field 3, so the start time is the 20th.
     *
     * @throws IllegalArgumentException if the line has no {@code )} or too few fields
     */
    static long parseStartTicks(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("no ')' in a /proc/PID/stat line");
        }
        String[] f = stat.substring(close + 1).trim().split("\\s+", -1);
        if (f.length < 20) {
            throw new IllegalArgumentException(
                    "a /proc/PID/stat line has " + (f.length + 2) + " fields, fewer than 22");
        }
        return Long.parseLong(f[19]);
    }
}
