package org.leasesync.remote;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Asks whether any of the sync server URLs can be reached at all, for the window's offline state:
 * one {@code GET <url>/v1} per URL, without credentials. A URL counts as reachable when it answers
 * with any HTTP status but {@code 502}, {@code 503} or {@code 504} — a {@code 404} or {@code 401}
 * still proves a server is there; {@code 503} is how an instance says it takes no requests (the
 * same rule as failover), and {@code 502}/{@code 504} are a proxy saying it cannot reach one.
 * Connection refused, an unknown host, a timeout or a dropped connection count as unreachable.
 *
 * <p>It never sends a push or anything with a body, so probing is harmless to repeat. Thread-safe;
 * {@link #probe()} blocks for at most {@code timeout} per URL. Owns its HTTP client (short
 * timeouts, no automatic retries), which {@link #close()} releases.
 */
public final class ServerProbe implements AutoCloseable {

    private final ServerUrls servers;
    private final OkHttpClient http;

    /**
     * @param timeout the most one URL may take (connect, send, answer)
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public ServerProbe(ServerUrls servers, Duration timeout) {
        this(servers, timeout, TransportSecurity.DEFAULT);
    }

    /**
     * @param timeout the most one URL may take (connect, send, answer)
     * @param transport the CA file the client trusts (an untrusted certificate counts as unreachable)
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public ServerProbe(ServerUrls servers, Duration timeout, TransportSecurity transport) {
        this.servers = Objects.requireNonNull(servers, "servers");
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("probe timeout must be positive, got " + timeout);
        }
        OkHttpClient.Builder b = new OkHttpClient.Builder()
                .retryOnConnectionFailure(false)
                .followRedirects(false)
                .callTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .connectTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .connectionPool(new okhttp3.ConnectionPool(0, 1, TimeUnit.SECONDS));
        this.http = transport.configure(b, servers).build(); // no TLS set-up for http servers
    }

    /**
     * What one probe found.
     *
     * @param reachable some URL answered (see the class comment)
     * @param detail per URL, what it did ({@code "http://a:8787/: refused"}), for the log
     */
    public record Result(boolean reachable, String detail) {
        public Result {
            Objects.requireNonNull(detail, "detail");
        }
    }

    /** Probes the URLs in order and stops at the first that is reachable. Blocks. */
    public Result probe() {
        List<String> seen = new ArrayList<>();
        for (HttpUrl base : servers.urls()) {
            String server = ServerUrls.display(base);
            HttpUrl url = base.newBuilder()
                    .addPathSegment("v1")
                    .query(null)
                    .fragment(null)
                    .build();
            Request request = new Request.Builder()
                    .url(url)
                    .get()
                    .header("User-Agent", "leasesync-probe")
                    .build();
            try (Response r = http.newCall(request).execute()) {
                int status = r.code();
                if (status != 502 && status != 503 && status != 504) {
                    seen.add(server + ": HTTP " + status);
                    return new Result(true, String.join(", ", seen));
                }
                seen.add(server + ": HTTP " + status);
            } catch (IOException e) {
                seen.add(server + ": " + reason(e));
            }
        }
        return new Result(false, String.join(", ", seen));
    }

    private static String reason(IOException e) {
        if (e instanceof java.net.ConnectException) {
            return "refused";
        }
        if (e instanceof java.net.UnknownHostException) {
            return "unknown host";
        }
        if (e instanceof java.io.InterruptedIOException) {
            return "timed out";
        }
        return e.getClass().getSimpleName();
    }

    @Override
    public void close() {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }
}
