package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.remote.ServerProbe;
import org.leasesync.remote.ServerUrls;
import org.leasesync.testing.ManualTime;

/** The offline state against a real HTTP server on loopback that goes away and comes back on its port. */
class OfflineMonitorTest {

    final ManualTime time = new ManualTime(Instant.parse("2026-11-30T14:00:00Z"));
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    final AtomicInteger probes = new AtomicInteger();
    HttpServer server;
    int port;
    ServerProbe probe;
    OfflineMonitor monitor;

    @AfterEach
    void stop() {
        if (monitor != null) {
            monitor.close();
        }
        scheduler.shutdownNow();
        if (server != null) {
            server.stop(0);
        }
        if (probe != null) {
            probe.close();
        }
    }

    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        server.start();
        port = server.getAddress().getPort();
    }

    void monitor(Duration first, Duration max) {
        probe = new ServerProbe(ServerUrls.single("http://127.0.0.1:" + port), Duration.ofSeconds(2));
        monitor = new OfflineMonitor(
                () -> {
                    probes.incrementAndGet();
                    return probe.probe();
                },
                scheduler,
                time,
                first,
                max,
                new OfflineMonitor.Listener() {
                    @Override
                    public void offline(Instant nextTry) {
                        events.add("offline " + nextTry);
                    }

                    @Override
                    public void backOnline() {
                        events.add("back");
                    }
                });
    }

    String next() throws InterruptedException {
        String e = events.poll(20, TimeUnit.SECONDS);
        assertThat(e).as("an event within 20 s").isNotNull();
        return e;
    }

    @Test
    void aFailureWithTheServerUpIsNotOffline() throws Exception {
        startServer();
        monitor(Duration.ofMillis(50), Duration.ofMillis(200));
        monitor.suspect();
        waitFor(() -> probes.get() == 1);
        Thread.sleep(300);
        assertThat(events).isEmpty();
        assertThat(monitor.nextTry()).isEmpty();
        assertThat(probes.get()).isEqualTo(1); // no probing on after a reachable answer
    }

    @Test
    void goesOfflineProbesWithBackoffAndSaysWhenTheServerIsBack() throws Exception {
        startServer();
        server.stop(0); // the port is known and refuses now
        monitor(Duration.ofMillis(100), Duration.ofMillis(400));
        monitor.suspect();
        assertThat(next()).isEqualTo("offline 2026-11-30T14:00:00.100Z"); // next try: now + the first wait
        assertThat(monitor.nextTry()).contains(Instant.parse("2026-11-30T14:00:00.100Z"));
        monitor.suspect(); // already offline: no second probe chain
        assertThat(next())
                .isEqualTo("offline 2026-11-30T14:00:00.200Z"); // the wait doubled (the test's clock stands still)
        assertThat(next()).isEqualTo("offline 2026-11-30T14:00:00.400Z");
        assertThat(next()).isEqualTo("offline 2026-11-30T14:00:00.400Z"); // bounded
        startServer();
        String e;
        do {
            e = next();
        } while (e.startsWith("offline"));
        assertThat(e).isEqualTo("back");
        assertThat(monitor.nextTry()).isEmpty();
        int after = probes.get();
        Thread.sleep(600);
        assertThat(probes.get()).isEqualTo(after); // probing stops once the server answers
        assertThat(events).isEmpty();
    }

    @Test
    void theBackoffDoublesUpToItsBound() {
        port = 1;
        monitor(Duration.ofSeconds(5), Duration.ofMinutes(1));
        assertThat(monitor.backoff(0)).isEqualTo(Duration.ofSeconds(5));
        assertThat(monitor.backoff(1)).isEqualTo(Duration.ofSeconds(10));
        assertThat(monitor.backoff(2)).isEqualTo(Duration.ofSeconds(20));
        assertThat(monitor.backoff(3)).isEqualTo(Duration.ofSeconds(40));
        assertThat(monitor.backoff(4)).isEqualTo(Duration.ofMinutes(1));
        assertThat(monitor.backoff(1000)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aSuccessfulSyncEndsTheOfflineStateAndItsProbes() throws Exception {
        startServer();
        server.stop(0);
        monitor(Duration.ofMillis(300), Duration.ofMillis(300));
        monitor.suspect();
        assertThat(next()).startsWith("offline");
        monitor.reachedServer();
        assertThat(monitor.nextTry()).isEmpty();
        int after = probes.get();
        Thread.sleep(800);
        assertThat(probes.get()).isEqualTo(after);
        assertThat(events).isEmpty();
    }

    static void waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!c.getAsBoolean()) {
            assertThat(System.nanoTime() < end).as("condition within 20 s").isTrue();
            Thread.sleep(20);
        }
    }
}
