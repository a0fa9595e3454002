package org.leasesync.server.http;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.leasesync.server.protocol.Json;

/**
 * What a handler answers: a JSON response (or, for {@code /metrics}, text), or "drop the
 * connection without a response".
 * {@link #beforeSend()} runs once, when the answer is final, just before it is sent or the
 * connection dropped — e.g. to release an idempotency key claim, so that a client that has its
 * answer and asks again at once finds the key completed, never still "in progress".
 */
final class Reply {

    private final int status;
    private final byte[] body;
    private final Map<String, String> headers;
    private final boolean drop;
    private final Runnable beforeSend;

    private Reply(int status, byte[] body, Map<String, String> headers, boolean drop, Runnable beforeSend) {
        this.status = status;
        this.body = body;
        this.headers = headers;
        this.drop = drop;
        this.beforeSend = beforeSend;
    }

    static Reply json(int status, Object value) {
        return new Reply(status, Json.bytes(value), Map.of(), false, () -> {});
    }

    static Reply jsonText(int status, String jsonText) {
        return new Reply(status, jsonText.getBytes(StandardCharsets.UTF_8), Map.of(), false, () -> {});
    }

    /** A plain-text answer with its own content type (e.g. the Prometheus exposition of {@code /metrics}). */
    static Reply text(int status, String contentType, String text) {
        return new Reply(
                status, text.getBytes(StandardCharsets.UTF_8), Map.of("Content-Type", contentType), false, () -> {});
    }

    static Reply dropConnection() {
        return new Reply(0, new byte[0], Map.of(), true, () -> {});
    }

    Reply withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new Reply(status, body, Map.copyOf(h), drop, beforeSend);
    }

    Reply beforeSend(Runnable action) {
        return new Reply(status, body, headers, drop, action);
    }

    int status() {
        return status;
    }

    byte[] body() {
        return body;
    }

    Map<String, String> headers() {
        return headers;
    }

    boolean drop() {
        return drop;
    }

    Runnable beforeSend() {
        return beforeSend;
    }
}
