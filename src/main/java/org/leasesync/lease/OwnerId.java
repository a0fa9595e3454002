package org.leasesync.lease;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A unique id per running process (or per registry instance within a process), written
 * {@code machine/pid/start/nonce}, e.g.
 * {@code vm:pidns4026531836/41877/1805146@2f1c0e6b8d7a4c2e9b1d3f5a7c9e0b12@4026531834/a1b2c3d4e5f6}.
 * It carries enough to prove, on the same machine, that its process has died (see
 * {@link OwnerLiveness}): two app processes on one machine are two owners, and a recycled pid is told
 * apart by its start time in clock ticks since boot ({@link ProcessStart}), which no wall-clock step
 * changes.
 *
 * <p>Owner ids written by earlier versions ({@code machine/pid/processStartMillis/nonce}, a start in
 * epoch milliseconds) still parse, as a {@link ProcessStart.Legacy} start, and are written back
 * unchanged; such an owner is never provably dead.
 *
 * <p>Immutable and thread-safe.
 *
 * @param host the machine: host name, plus {@code :pidnsN} on Linux ({@link #localMachine()}); non-blank, no {@code /}
 * @param pid the operating-system process id, &gt; 0
 * @param start when the process started ({@link ProcessStart#UNKNOWN} if unknown)
 * @param nonce random hex, distinguishing several owners inside one process
 */
public record OwnerId(String host, long pid, ProcessStart start, String nonce) {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** @throws IllegalArgumentException naming the bad field */
    public OwnerId {
        if (host == null || host.isBlank() || host.contains("/")) {
            throw new IllegalArgumentException("owner host must be non-blank without '/': '" + host + "'");
        }
        if (pid <= 0) {
            throw new IllegalArgumentException("owner pid must be > 0, got " + pid);
        }
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(nonce, "nonce");
        if (!isLowerHex(nonce, 32)) {
            throw new IllegalArgumentException("owner nonce must be 1-32 lower-case hex digits, got '" + nonce + "'");
        }
    }

    /**
     * An owner id in the earlier form, whose start is epoch milliseconds ({@link ProcessStart.Legacy});
     * never provably dead. For rows written by earlier versions, and for tests that need any owner.
     *
     * @throws IllegalArgumentException naming the bad field
     */
    public OwnerId(String host, long pid, long legacyStartMillis, String nonce) {
        this(host, pid, new ProcessStart.Legacy(legacyStartMillis), nonce);
    }

    /** Whether {@code s} is 1..{@code max} lower-case hex digits (what the pattern [0-9a-f]{1,max} matches). */
    static boolean isLowerHex(String s, int max) {
        int n = s.length();
        if (n == 0 || n > max) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A fresh owner id for the current process: machine ({@link #localMachine()}), pid, the start
     * in clock ticks since boot with the boot id ({@link ProcessStart}, {@link ProcessStart#UNKNOWN}
     * without {@code /proc}) and a random nonce. Does a local host-name lookup and reads {@code /proc}
     * (may block briefly).
     */
    public static OwnerId forCurrentProcess() {
        return new OwnerId(localMachine(), ProcessHandle.current().pid(), ProcessStart.current(), randomNonce());
    }

    /**
     * Parses the written form, the current one or the earlier {@code host/pid/processStartMillis/nonce}.
     *
     * @throws IllegalArgumentException naming the text if it is not {@code host/pid/start/nonce}
     */
    public static OwnerId parse(String text) {
        String[] p = text == null ? new String[0] : text.split("/", -1);
        if (p.length != 4) {
            throw new IllegalArgumentException("owner id '" + text + "' is not host/pid/start/nonce");
        }
        long pid;
        try {
            pid = Long.parseLong(p[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("owner id '" + text + "' has a non-numeric pid", e);
        }
        try {
            return new OwnerId(p[0], pid, ProcessStart.parse(p[2]), p[3]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("owner id '" + text + "': " + e.getMessage(), e);
        }
    }

    /** The written form {@code host/pid/start/nonce}; {@code parse(asString())} equals this id. */
    public String asString() {
        return host + "/" + pid + "/" + start.asString() + "/" + nonce;
    }

    @Override
    public String toString() {
        return asString();
    }

    static String randomNonce() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * This machine as written into owner ids: the host name, plus — on Linux — the process-id
     * namespace ({@code /proc/self/ns/pid}), so that a pid is only ever interpreted in the namespace
     * it belongs to (two containers or sandboxes with the same host name are two machines).
     */
    public static String localMachine() {
        String host = localHostName();
        try {
            java.nio.file.Path ns = java.nio.file.Path.of("/proc/self/ns/pid");
            if (java.nio.file.Files.exists(ns)) {
                String target = java.nio.file.Files.readSymbolicLink(ns).toString(); // pid:[4026531836]
                String digits = target.replaceAll("[^0-9]", "");
                if (!digits.isEmpty()) {
                    return host + ":pidns" + digits;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not provable: fall back to the host name alone
        }
        return host;
    }

    /** The local host name, or {@code localhost} when it cannot be determined. */
    public static String localHostName() {
        String env = System.getenv("HOSTNAME");
        try {
            String h = InetAddress.getLocalHost().getHostName();
            if (h != null && !h.isBlank()) {
                return h.replace('/', '_');
            }
        } catch (Exception e) {
            // fall through to the environment
        }
        return env == null || env.isBlank() ? "localhost" : env.replace('/', '_');
    }
}
