package org.leasesync.remote;

import java.time.Duration;

/**
 * HTTP timeouts. Immutable; validated in the constructor.
 *
 * @param connect how long to wait for a TCP connection (a push that times out here was not sent)
 * @param read longest silence while reading a response (a push that times out here may have been applied;
 *     with several URLs, a read that times out here goes to the next: {@link FailureClass#NO_RESPONSE})
 * @param call the whole call, including the request and response bodies; with several server URLs, all
 *     attempts of one call together ({@link ServerUrls})
 */
public record HttpSettings(Duration connect, Duration read, Duration call) {

    /**
     * 3 s connect (a connection on a LAN or loopback takes milliseconds; 3 s allows one lost SYN
     * and finds an unreachable instance soon), 30 s read, 45 s per call (under 90% of the default
     * 60 s lease TTL).
     */
    public static final HttpSettings DEFAULT =
            new HttpSettings(Duration.ofSeconds(3), Duration.ofSeconds(30), Duration.ofSeconds(45));

    /** @throws IllegalArgumentException naming the bad timeout */
    public HttpSettings {
        check("connect", connect);
        check("read", read);
        check("call", call);
    }

    private static void check(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("HTTP " + name + " timeout must be between 1ms and 10m, got " + d);
        }
    }
}
