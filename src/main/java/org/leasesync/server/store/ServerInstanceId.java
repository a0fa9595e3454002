package org.leasesync.server.store;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.leasesync.server.ReferenceServer;

/**
 * Server instance ids: {@code HOST/PID/RANDOM}, e.g. {@code db-host-1/4242/3f9c2a1b7e05}. The
 * random part (48 bits) makes every {@link ReferenceServer} unique, also several in one process
 * and a restarted process that got the same pid. At most 128 characters. Stateless.
 */
public final class ServerInstanceId {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int MAX_HOST_CHARS = 100;

    private ServerInstanceId() {}

    /** A new id. Blocks briefly the first time the host name is looked up. */
    public static String create() {
        byte[] random = new byte[6];
        RANDOM.nextBytes(random);
        String host = hostName();
        if (host.length() > MAX_HOST_CHARS) {
            host = host.substring(0, MAX_HOST_CHARS);
        }
        return host + "/" + ProcessHandle.current().pid() + "/" + HexFormat.of().formatHex(random);
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
