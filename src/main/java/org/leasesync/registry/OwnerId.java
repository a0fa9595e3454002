package org.leasesync.registry;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A unique id per running process (or per registry instance within a process), written
 * {@code host/pid/processStartMillis/nonce}. It carries enough to prove, on the same machine,
 * that its process has died (see {@link OwnerLiveness}): two app processes on one machine are two
 * owners, and a recycled pid is told apart by its start time.
 *
 * <p>Immutable and thread-safe.
 *
 * @param host the host name, non-blank, no {@code /}
 * @param pid the operating-system process id, &gt; 0
 * @param processStartMillis the process start in epoch millis as reported by the OS, or 0 if unknown
 * @param nonce random hex, distinguishing several owners inside one process
 */
public record OwnerId(String host, long pid, long processStartMillis, String nonce) {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** @throws IllegalArgumentException naming the bad field */
    public OwnerId {
        if (host == null || host.isBlank() || host.contains("/")) {
            throw new IllegalArgumentException("owner host must be non-blank without '/': '" + host + "'");
        }
        if (pid <= 0) {
            throw new IllegalArgumentException("owner pid must be > 0, got " + pid);
        }
        if (processStartMillis < 0) {
            throw new IllegalArgumentException("owner processStartMillis must be >= 0, got " + processStartMillis);
        }
        Objects.requireNonNull(nonce, "nonce");
        if (!isLowerHex(nonce, 32)) {
            throw new IllegalArgumentException("owner nonce must be 1-32 lower-case hex digits, got '" + nonce + "'");
        }
    }

    /** Whether {@code s} is 1..{@code max} lower-case hex digits (what the pattern [0-9a-f]{1,max} matches). */
    private static boolean isLowerHex(String s, int max) {
        int n = s.length();
        if (n == 0 || n > max) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /**
     * A fresh owner id for the current process: host name, pid, the OS's record of the process
     * start and a random nonce. Does a local host-name lookup (may block briefly).
     */
    public static OwnerId forCurrentProcess() {
        ProcessHandle self = ProcessHandle.current();
        long start = self.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
        return new OwnerId(localMachine(), self.pid(), start, randomNonce());
    }

    /**
     * Parses the written form.
     *
     * @throws IllegalArgumentException if the text is not {@code host/pid/start/nonce}
     */
    public static OwnerId parse(String text) {
        String[] p = text == null ? new String[0] : text.split("/", -1);
        if (p.length != 4) {
            throw new IllegalArgumentException("owner id '" + text + "' is not host/pid/processStartMillis/nonce");
        }
        try {
            return new OwnerId(p[0], Long.parseLong(p[1]), Long.parseLong(p[2]), p[3]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("owner id '" + text + "' has a non-numeric pid or start", e);
        }
    }

    /** The written form {@code host/pid/processStartMillis/nonce}. */
    public String asString() {
        return host + "/" + pid + "/" + processStartMillis + "/" + nonce;
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
                String target = java.nio.file.Files.readSymbolicLink(ns).toString();   // pid:[4026531836]
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
