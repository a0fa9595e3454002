package org.leasesync.server;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's socket and threads: the HTTP (or, with {@link ServerConfig#tls()}, HTTPS) listener
 * bound to the configured address, the request workers ({@code sync-server-N}) and the housekeeping
 * thread ({@code sync-server-housekeeping}), all daemon threads. {@link ReferenceServer#start} wires
 * them to the handlers and owns them; how they are made is kept here, apart from that wiring.
 *
 * <p>Stateless.
 */
final class ServerListener {

    private ServerListener() {}

    /**
     * An unstarted listener on {@code cfg}'s address and port, HTTPS when it has TLS.
     *
     * @throws IOException if the address cannot be bound (e.g. port in use) or resolved
     */
    static HttpServer bind(ServerConfig cfg) throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(cfg.bindAddress()), cfg.port());
        if (cfg.tls() == null) {
            return HttpServer.create(address, 64);
        }
        HttpsServer secure = HttpsServer.create(address, 64);
        secure.setHttpsConfigurator(new HttpsConfigurator(cfg.tls().context()));
        return secure;
    }

    /** The request workers: {@code threads} daemon threads named {@code sync-server-N}. */
    static ExecutorService workers(int threads) {
        return Executors.newFixedThreadPool(threads, namedThreads());
    }

    /** The single daemon thread {@code sync-server-housekeeping}. */
    static ScheduledExecutorService housekeeping() {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sync-server-housekeeping");
            t.setDaemon(true);
            return t;
        });
    }

    private static ThreadFactory namedThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "sync-server-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
