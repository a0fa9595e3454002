package org.leasesync.server.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.store.RequestAudit;
import org.leasesync.server.store.SessionStore.Session;

/**
 * One request as the handlers see it: the exchange, the decoded path segments, (for user paths)
 * the authorised user and scope, its audit row ({@link RequestAudit#off()} when not audited), and
 * the live session it was made with (null for endpoints that need none).
 */
record RequestContext(
        HttpExchange exchange,
        List<String> segments,
        String user,
        String scope,
        String runId,
        Instant arrival,
        RequestAudit audit,
        Session session) {

    /** Largest accepted request body: 5 MiB. */
    static final int MAX_BODY_BYTES = org.leasesync.protocol.RecordLimits.MAX_PUSH_BODY_BYTES;
    /** Oversized bodies up to this size are read and discarded before the 413 is sent. */
    private static final long MAX_DRAIN_BYTES = 4L * MAX_BODY_BYTES;

    String method() {
        return exchange.getRequestMethod();
    }

    /** The first value of a request header, or null. */
    String header(String name) {
        return exchange.getRequestHeaders().getFirst(name);
    }

    /** The raw query string, or null. */
    String rawQuery() {
        return exchange.getRequestURI().getRawQuery();
    }

    /**
     * Reads the whole request body.
     *
     * @throws ApiError 413 if it is larger than {@link #MAX_BODY_BYTES}
     */
    byte[] readBody() throws IOException {
        String length = header("Content-Length");
        long declared = -1;
        if (length != null) {
            try {
                declared = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                throw ApiError.badRequest("Content-Length '" + length + "' is not a number");
            }
        }
        InputStream in = exchange.getRequestBody();
        if (declared > MAX_DRAIN_BYTES) {
            throw tooLarge();
        }
        byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        if (bytes.length > MAX_BODY_BYTES) {
            // Read the rest (up to a cap) so the client gets to read the 413 instead of a reset.
            // (Not InputStream.skip: the JDK server's body stream inherits FilterInputStream.skip,
            // which would skip past the body into the raw connection.)
            byte[] sink = new byte[65536];
            long left = MAX_DRAIN_BYTES;
            int n;
            while (left > 0 && (n = in.read(sink, 0, (int) Math.min(left, sink.length))) > 0) {
                left -= n;
            }
            throw tooLarge();
        }
        return bytes;
    }

    private static ApiError tooLarge() {
        return new ApiError(
                413, "payload_too_large", "request body is larger than " + MAX_BODY_BYTES + " bytes (5 MiB)");
    }
}
