package org.leasesync.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.leasesync.sync.CallCancellation;
import org.leasesync.sync.RemoteException;

/**
 * One request to one server URL and what its outcome proves. The request is tagged with a
 * {@link Probe} that a network interceptor marks once a connection is established, right before the
 * request is written: an I/O failure before that point proves the server never saw the request
 * (connection refused, unknown host, no route, connect timeout), one after it does not.
 *
 * <p>Outcomes: the parsed 2xx JSON body; {@link AttemptFailed} with the {@link FailureClass} of a
 * failure (never sent, refused, {@code 503}, no answer in time, connection broken, a gateway's
 * {@code 502}/{@code 504}, a body that stalled), from which {@link Failover} decides whether another
 * URL may be tried; otherwise a {@link RemoteException} (an HTTP error, a cancellation, an unreadable
 * answer). Every response is closed. Thread-safe; blocks on the network.
 */
final class Exchange {

    static final String UNREADABLE = "the sync server sent an answer leasesync cannot read";

    private final OkHttpClient client;
    private final ObjectMapper mapper;
    private final java.time.Clock clock;

    /**
     * @param client a client derived from the shared one; {@link #tracking} must be among its network interceptors
     * @param clock the wall clock an HTTP-date {@code Retry-After} is read against
     */
    Exchange(OkHttpClient client, ObjectMapper mapper, java.time.Clock clock) {
        this.client = client;
        this.mapper = mapper;
        this.clock = clock;
    }

    /**
     * A client for protocol calls derived from the application's shared one: no retries or redirects
     * of OkHttp's own (a refused connection is the failover's to judge, and a redirect would carry the
     * bearer token to wherever it points), the per-attempt timeouts and the call timeout of
     * {@code timeouts}, and {@link #tracking}. Callers add what is theirs (authentication) and build it.
     */
    static OkHttpClient.Builder clientFor(OkHttpClient shared, HttpSettings timeouts) {
        return shared.newBuilder()
                .retryOnConnectionFailure(false)
                .followRedirects(false)
                .connectTimeout(timeouts.connect())
                .readTimeout(timeouts.read())
                .writeTimeout(timeouts.read())
                .callTimeout(timeouts.call())
                .addNetworkInterceptor(tracking());
    }

    /** The network interceptor that marks a request's {@link Probe}. */
    static Interceptor tracking() {
        return chain -> {
            Probe probe = chain.request().tag(Probe.class);
            if (probe != null) {
                probe.connected = true;
            }
            return chain.proceed(chain.request());
        };
    }

    /**
     * Executes a GET: on a connection that broke after it was sent (e.g. a pooled connection the
     * server had closed) it is tried once more on the same URL — not when this process cancelled it
     * (it is stopping: SIGTERM, the window closing). Never used for pushes.
     *
     * @param deadlineNanos the {@link System#nanoTime()} by which the whole call must end
     * @throws AttemptFailed when it failed in a classified way ({@link FailureClass}); RemoteException otherwise
     */
    JsonNode safe(Request req, String what, String server, long deadlineNanos) {
        return safe(req, what, server, deadlineNanos, this::tree);
    }

    /**
     * {@link #safe(Request, String, String, long)} with the 2xx body read by {@code reader}.
     *
     * @throws AttemptFailed when it failed in a classified way ({@link FailureClass}); RemoteException otherwise, AMBIGUOUS with
     *     {@link #UNREADABLE} when {@code reader} finds the body malformed
     */
    <T> T safe(Request req, String what, String server, long deadlineNanos, BodyReader<T> reader) {
        try {
            return execute(req, what, server, false, deadlineNanos, reader);
        } catch (AttemptFailed e) {
            if (e.failure() == FailureClass.DROPPED
                    || e.failure() == FailureClass.SLOW_BODY
                            && !(e.error().getCause() instanceof InterruptedIOException)) {
                return execute(req, what, server, false, deadlineNanos, reader);
            }
            throw e;
        }
    }

    /** Reads a 2xx JSON body (its bytes as received). */
    interface BodyReader<T> {
        /**
         * @throws IOException ({@link com.fasterxml.jackson.core.JsonProcessingException}) when it is not JSON
         * @throws IllegalArgumentException naming what is missing or wrong in it
         */
        T read(byte[] body) throws IOException;
    }

    /** The body as a tree; it must be a JSON object. */
    private JsonNode tree(byte[] body) throws IOException {
        JsonNode node = mapper.readTree(body);
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        return node;
    }

    /**
     * Executes a push once. A {@code 502}/{@code 504} (a gateway between client and server failed)
     * is AMBIGUOUS: the server behind it may have applied the push.
     *
     * @throws AttemptFailed when it failed in a classified way ({@link FailureClass}); RemoteException otherwise
     */
    JsonNode push(Request req, String what, String server, long deadlineNanos) {
        return execute(req, what, server, true, deadlineNanos, this::tree);
    }

    /**
     * Executes a request whose 2xx answer has no body to read ({@code 204}), once: like a push, it is
     * never resent by this method.
     *
     * @throws AttemptFailed when it failed in a classified way ({@link FailureClass}); RemoteException otherwise
     */
    void withoutBody(Request req, String what, String server, long deadlineNanos) {
        execute(req, what, server, false, deadlineNanos, null);
    }

    /**
     * Executes a request with a JSON answer, once (a sign-in: it is not resent after it may have
     * arrived, nor is a push).
     *
     * @throws AttemptFailed when it failed in a classified way ({@link FailureClass}); RemoteException otherwise
     */
    JsonNode once(Request req, String what, String server, long deadlineNanos) {
        return execute(req, what, server, false, deadlineNanos, this::tree);
    }

    /** @param reader reads the 2xx body; null when the answer has none to read */
    // "try": the cancellation registration is held for the call, only its close is used (javac does
    // not honour the annotation on a resource whose initializer is a method reference)
    @SuppressWarnings("try")
    private <T> T execute(
            Request template, String what, String server, boolean isPush, long deadlineNanos, BodyReader<T> reader) {
        Probe probe = new Probe();
        Call call = client.newCall(template.newBuilder().tag(Probe.class, probe).build());
        call.timeout().timeout(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        try (CallCancellation.Registration onCancel = CallCancellation.register(call::cancel);
                Response resp = call.execute()) {
            ResponseBody body = resp.body();
            byte[] bytes = bodyBytes(call, resp, what, server, isPush);
            if (!resp.isSuccessful()) {
                MediaType errorType = body.contentType();
                java.nio.charset.Charset charset = errorType == null ? null : errorType.charset();
                String text = new String(bytes, charset == null ? java.nio.charset.StandardCharsets.UTF_8 : charset);
                RemoteException e = HttpErrors.of(mapper, resp, text, what, clock);
                if (resp.code() == 503) {
                    throw new AttemptFailed(server, FailureClass.UNAVAILABLE, "HTTP 503", e);
                }
                if (resp.code() == 502 || resp.code() == 504) {
                    // the gateway answered for an instance that did not (in time): that instance may have acted
                    throw new AttemptFailed(
                            server,
                            FailureClass.ANSWERED_LATE,
                            "HTTP " + resp.code() + " from a gateway",
                            !isPush
                                    ? e
                                    : new RemoteException(
                                            RemoteException.Kind.AMBIGUOUS,
                                            0,
                                            e.code(),
                                            -1,
                                            "a gateway to the sync server failed (HTTP " + resp.code() + ")",
                                            e.getMessage() + "; the server behind the gateway may have applied it",
                                            null));
                }
                throw e;
            }
            if (reader == null) {
                return null;
            }
            MediaType type = body.contentType();
            if (type == null || !"json".equals(type.subtype())) {
                throw new RemoteException(
                        RemoteException.Kind.AMBIGUOUS,
                        0,
                        "",
                        -1,
                        UNREADABLE,
                        "the sync server's answer to "
                                + what + " was not JSON: expected JSON but got content type " + type
                                + (isPush ? "; it may have been applied" : ""),
                        null);
            }
            try {
                return reader.read(bytes);
            } catch (IllegalArgumentException | java.time.DateTimeException e) {
                throw new RemoteException(
                        RemoteException.Kind.AMBIGUOUS,
                        0,
                        "",
                        -1,
                        UNREADABLE,
                        "the sync server's answer to " + what + " was malformed: " + e.getMessage()
                                + (isPush ? "; it may have been applied" : ""),
                        e);
            }
        } catch (RemoteException | AttemptFailed e) {
            throw e;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new RemoteException(
                    RemoteException.Kind.AMBIGUOUS,
                    0,
                    "",
                    -1,
                    UNREADABLE,
                    "the sync server's answer to "
                            + what + " was malformed JSON (" + e.getOriginalMessage() + ")"
                            + (isPush ? "; it may have been applied" : ""),
                    e);
        } catch (IOException e) {
            throw beforeAnswer(e, call, probe, what, server, isPush, deadlineNanos);
        }
    }

    /**
     * Reads the whole body of an answer whose status line and headers have arrived.
     *
     * @throws AttemptFailed {@link FailureClass#SLOW_BODY} when the body stalls past a timeout or breaks off
     */
    private static byte[] bodyBytes(Call call, Response resp, String what, String server, boolean isPush) {
        try {
            return resp.body().bytes();
        } catch (IOException e) {
            if (call.isCanceled() && !(e instanceof InterruptedIOException) || CallCancellation.fired()) {
                throw cancelled(e, what, isPush);
            }
            boolean timeout = e instanceof InterruptedIOException;
            throw new AttemptFailed(
                    server,
                    FailureClass.SLOW_BODY,
                    timeout ? "the answer's body stalled" : "the answer's body broke off",
                    new RemoteException(
                            RemoteException.Kind.AMBIGUOUS,
                            0,
                            "",
                            -1,
                            timeout
                                    ? "the sync server did not answer in time"
                                    : "the connection to the sync server broke",
                            what + ": HTTP " + resp.code() + " arrived but its body "
                                    + (timeout ? "timed out" : "broke off (" + e.getMessage() + ")")
                                    + (isPush ? "; the server may have applied it" : ""),
                            e));
        }
    }

    /** Classifies an I/O failure before any answer arrived. */
    private static RuntimeException beforeAnswer(
            IOException e, Call call, Probe probe, String what, String server, boolean isPush, long deadlineNanos) {
        FingerprintingTrustManager.Untrusted untrusted = untrusted(e);
        if (untrusted != null) {
            // refused in the TLS handshake, before a byte of the request: another URL may be tried
            return new AttemptFailed(
                    server,
                    FailureClass.NEVER_SENT,
                    "certificate not trusted (SHA-256 " + untrusted.sha256() + ")",
                    new CertificateNotTrustedException(server, untrusted.sha256(), untrusted.subject(), e));
        }
        if (!probe.connected) {
            if (call.isCanceled() && deadlineNanos - System.nanoTime() > 0) {
                // cancelled (shutting down), not timed out: no other URL either
                return new RemoteException(
                        RemoteException.Kind.NOT_SENT,
                        0,
                        "",
                        -1,
                        "the request was cancelled",
                        what + " was cancelled before it was sent",
                        e);
            }
            RemoteException notSent = new RemoteException(
                    RemoteException.Kind.NOT_SENT,
                    0,
                    "",
                    -1,
                    "cannot reach the sync server at " + server,
                    "cannot reach the sync server at " + server + " (" + describe(e) + ")",
                    e);
            return new AttemptFailed(
                    server,
                    e instanceof java.net.ConnectException ? FailureClass.REFUSED : FailureClass.NEVER_SENT,
                    describe(e),
                    notSent);
        }
        if (call.isCanceled() && !(e instanceof InterruptedIOException) || CallCancellation.fired()) {
            return cancelled(e, what, isPush);
        }
        boolean timeout = e instanceof InterruptedIOException;
        String how = timeout ? "timed out" : "failed (" + e.getMessage() + ")";
        String msg = what + " " + how + (isPush ? "; the server may have applied it" : "");
        return new AttemptFailed(
                server,
                timeout ? FailureClass.NO_RESPONSE : FailureClass.DROPPED,
                timeout ? "no answer in time" : "connection broke: " + e.getMessage(),
                new RemoteException(
                        RemoteException.Kind.AMBIGUOUS,
                        0,
                        "",
                        -1,
                        timeout ? "the sync server did not answer in time" : "the connection to the sync server broke",
                        msg,
                        e));
    }

    /** Cancelled by this process (stopping): an interruption, never tried elsewhere or again. */
    private static RemoteException cancelled(IOException e, String what, boolean isPush) {
        InterruptedIOException cancelled = new InterruptedIOException("cancelled by this process");
        cancelled.initCause(e);
        return new RemoteException(
                RemoteException.Kind.AMBIGUOUS,
                0,
                "",
                -1,
                "the request was cancelled",
                what + " was cancelled" + (isPush ? "; the server may have applied it" : ""),
                cancelled);
    }

    /** The untrusted certificate a TLS handshake failed on, if that is why {@code e} happened. */
    private static FingerprintingTrustManager.Untrusted untrusted(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof FingerprintingTrustManager.Untrusted u) {
                return u;
            }
        }
        return null;
    }

    private static String describe(IOException e) {
        if (e instanceof java.net.ConnectException) {
            return "connection refused: " + e.getMessage();
        }
        if (e instanceof java.net.UnknownHostException) {
            return "unknown host: " + e.getMessage();
        }
        if (e instanceof java.net.NoRouteToHostException) {
            return "no route to host: " + e.getMessage();
        }
        if (e instanceof InterruptedIOException) {
            return "timed out connecting: " + e.getMessage();
        }
        if (e instanceof javax.net.ssl.SSLPeerUnverifiedException) {
            return "its certificate is for another host name: "
                    + e.getMessage().lines().findFirst().orElse("");
        }
        return e.toString();
    }

    /** Set by the network interceptor once the request is about to be written. */
    static final class Probe {
        volatile boolean connected;
    }

    /**
     * One attempt failed in a way {@link FailureClass} names; {@link Failover} decides from the class
     * whether another URL may be tried. Carries the error a caller gets when no other URL is tried.
     */
    static final class AttemptFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final String server;
        private final FailureClass failure;
        private final String reason;
        private final RemoteException error;

        AttemptFailed(String server, FailureClass failure, String reason, RemoteException error) {
            super(error.getMessage(), error, false, false);
            this.server = server;
            this.failure = failure;
            this.reason = reason;
            this.error = error;
        }

        String server() {
            return server;
        }

        FailureClass failure() {
            return failure;
        }

        /** Short, for the list of what was tried: {@code HTTP 503}, {@code connection refused: …}. */
        String reason() {
            return reason;
        }

        /** The error a caller gets when no other URL is tried: as with a single URL. */
        RemoteException error() {
            return error;
        }
    }
}
