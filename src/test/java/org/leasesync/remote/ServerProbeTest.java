package org.leasesync.remote;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real HTTP on loopback: refused, answered, 503/502, and a server that accepts but never answers. */
class ServerProbeTest {

    final List<HttpServer> servers = new ArrayList<>();
    final List<ServerSocket> sockets = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        servers.forEach(s -> s.stop(0));
        for (ServerSocket s : sockets) {
            s.close();
        }
    }

    String answering(int status) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        s.start();
        servers.add(s);
        return "http://127.0.0.1:" + s.getAddress().getPort();
    }

    static String refusing() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    /** Accepts connections (the kernel's backlog) but never reads or answers. */
    String silent() throws IOException {
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        sockets.add(s);
        return "http://127.0.0.1:" + s.getLocalPort();
    }

    static ServerProbe.Result probe(String urls) {
        try (ServerProbe p = new ServerProbe(ServerUrls.parse(urls), Duration.ofMillis(700))) {
            return p.probe();
        }
    }

    @Test
    void anyHttpAnswerButAGatewayOr503MeansReachable() throws IOException {
        ServerProbe.Result r = probe(answering(404));
        assertThat(r.reachable()).isTrue();
        assertThat(r.detail()).endsWith(": HTTP 404");
        assertThat(probe(answering(401)).reachable()).isTrue();
        assertThat(probe(answering(200)).reachable()).isTrue();
        assertThat(probe(answering(500)).reachable()).isTrue();
    }

    @Test
    void refused503502And504AreUnreachable() throws IOException {
        String refused = refusing();
        ServerProbe.Result r = probe(refused);
        assertThat(r.reachable()).isFalse();
        assertThat(r.detail()).isEqualTo(refused + "/: refused");
        assertThat(probe(answering(503)).reachable()).isFalse();
        assertThat(probe(answering(502)).reachable()).isFalse();
        assertThat(probe(answering(504)).reachable()).isFalse();
    }

    @Test
    void aServerThatNeverAnswersIsUnreachableAfterTheTimeout() throws IOException {
        ServerProbe.Result r = probe(silent());
        assertThat(r.reachable()).isFalse();
        assertThat(r.detail()).endsWith(": timed out");
    }

    @Test
    void oneReachableUrlOfSeveralIsEnoughAndEveryUrlIsNamed() throws IOException {
        String down = refusing();
        String busy = answering(503);
        String up = answering(404);
        ServerProbe.Result r = probe(down + "," + busy + "," + up);
        assertThat(r.reachable()).isTrue();
        assertThat(r.detail()).isEqualTo(down + "/: refused, " + busy + "/: HTTP 503, " + up + "/: HTTP 404");
        ServerProbe.Result none = probe(down + "," + busy);
        assertThat(none.reachable()).isFalse();
        assertThat(none.detail()).isEqualTo(down + "/: refused, " + busy + "/: HTTP 503");
    }

    @Test
    void theProbeAsksForV1WithoutCredentials() throws IOException {
        List<String> seen = new ArrayList<>();
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI() + " auth="
                    + ex.getRequestHeaders().getFirst("Authorization"));
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        s.start();
        servers.add(s);
        assertThat(probe("http://u:secret@127.0.0.1:" + s.getAddress().getPort() + "/")
                        .reachable())
                .isTrue();
        assertThat(seen).containsExactly("GET /v1 auth=null");
    }
}
