package org.leasesync.remote;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.leasesync.sync.RemoteException;

/**
 * Signing in and out on a sync server (docs/protocol.md §12): {@code POST /v1/sessions} with the
 * user's password gives a session token; {@code DELETE /v1/sessions/current} ends it. Over a client
 * derived from the application's one shared OkHttp client, with the same failover as syncing: a
 * request that certainly did nothing on one URL (not sent, {@code 503}, a certificate refused in
 * the handshake) goes to the next; nothing is resent after it may have arrived.
 *
 * <p>No password or token is ever logged or put into a message; {@link NewSession#toString()} hides
 * the token. Thread-safe; every call blocks on the network, at most the call timeout.
 */
public final class SessionsClient {

    private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
    /**
     * Ignores fields a newer server adds to its session answers; its own mapper, as the shared
     * ones ({@code JsonMappers}) refuse a field they do not know.
     */
    private static final ObjectMapper MAPPER =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final ServerUrls servers;
    private final Exchange exchange;
    private final Failover failover;

    /**
     * @param servers the server, or the instances of a cluster, in order of preference
     * @param shared the application's one OkHttp client (set up with {@link TransportSecurity})
     * @param timeouts connect and read per attempt; the call timeout bounds all attempts of one call
     */
    public SessionsClient(ServerUrls servers, OkHttpClient shared, HttpSettings timeouts) {
        this(servers, shared, timeouts, org.leasesync.lease.TimeSource.system());
    }

    /**
     * @param servers the server, or the instances of a cluster, in order of preference
     * @param shared the application's one OkHttp client (set up with {@link TransportSecurity})
     * @param timeouts connect and read per attempt; the call timeout bounds all attempts of one call
     * @param time the wall clock an HTTP-date {@code Retry-After} is read against
     */
    public SessionsClient(
            ServerUrls servers, OkHttpClient shared, HttpSettings timeouts, org.leasesync.lease.TimeSource time) {
        this.servers = Objects.requireNonNull(servers, "servers");
        this.exchange = new Exchange(Exchange.clientFor(shared, timeouts).build(), MAPPER, new WallClock(time));
        this.failover = new Failover(servers, timeouts.call());
    }

    /**
     * A new session.
     *
     * @param token the bearer token (43 characters by the reference server); never shown
     * @param sessionId the server's id of the session (for its device list)
     * @param user the user the server signed in
     * @param admin whether the account has the admin flag
     * @param expiresAt when the session ends if unused, when the server said
     */
    public record NewSession(String token, String sessionId, String user, boolean admin, Optional<Instant> expiresAt) {
        public NewSession {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }

        /** Never the token. */
        @Override
        public String toString() {
            return "NewSession[sessionId=" + sessionId + ", user=" + user + ", admin=" + admin + ", expiresAt="
                    + expiresAt.map(Instant::toString).orElse("?") + ", token=(hidden)]";
        }
    }

    /** How a sign-out ended on the server. */
    public enum SignOut {
        /** The server ended the session ({@code 204}). */
        ENDED,
        /** The server no longer knew the session ({@code 401}): it had ended already. */
        ALREADY_ENDED
    }

    /**
     * Signs in ({@code POST /v1/sessions}). Blocks.
     *
     * @param device the name the user will recognise in their session list (1..100 printable characters)
     * @throws RemoteException HTTP {@code 401 invalid_credentials} for a wrong user name or password (or a
     *     disabled account); HTTP {@code 429 too_many_attempts} with {@link RemoteException#retryAfterMillis()};
     *     {@link CertificateNotTrustedException}; NOT_SENT when no server could be reached; AMBIGUOUS when
     *     the answer was lost or unreadable (a session may then exist on the server, unused: it ends when idle)
     */
    public NewSession signIn(String user, char[] password, String device) {
        ObjectNode body = MAPPER.createObjectNode();
        body.put("user", user);
        body.put("password", new String(password));
        body.put("device", device);
        byte[] bytes;
        try {
            bytes = MAPPER.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("could not write a sign-in request: " + e.getMessage(), e);
        }
        RequestBody content = RequestBody.create(bytes, JSON);
        String what = "sign in as " + user;
        JsonNode answer = failover.call(
                what,
                Failover.Mode.ONCE,
                (base, server, deadline) -> exchange.once(
                        new Request.Builder()
                                .url(base.newBuilder()
                                        .addPathSegment("v1")
                                        .addPathSegment("sessions")
                                        .build())
                                .post(content)
                                .build(),
                        what,
                        server,
                        deadline));
        try {
            String token = text(answer, "token");
            checkToken(token);
            JsonNode expires = answer.get("expiresAt");
            return new NewSession(
                    token,
                    text(answer, "sessionId"),
                    answer.path("user").asText(user),
                    answer.path("admin").asBoolean(false),
                    expires == null || !expires.isTextual()
                            ? Optional.empty()
                            : Optional.of(Instant.parse(expires.asText())));
        } catch (RuntimeException e) {
            throw new RemoteException(
                    RemoteException.Kind.AMBIGUOUS,
                    0,
                    "",
                    -1,
                    Exchange.UNREADABLE,
                    "the sync server's answer to " + what + " was malformed (" + e.getMessage() + ")",
                    e);
        }
    }

    /**
     * Ends the session of {@code token} ({@code DELETE /v1/sessions/current}). Blocks.
     *
     * @return whether the server ended it now or it had ended already
     * @throws RemoteException when the server could not be reached or refused otherwise
     */
    public SignOut signOut(String token) {
        String what = "sign out";
        try {
            // ending a session twice changes nothing (the second answers 401): any failure may try the next URL
            failover.call(what, Failover.Mode.READ, (base, server, deadline) -> {
                exchange.withoutBody(
                        new Request.Builder()
                                .url(base.newBuilder()
                                        .addPathSegment("v1")
                                        .addPathSegment("sessions")
                                        .addPathSegment("current")
                                        .build())
                                .delete()
                                .header("Authorization", "Bearer " + token)
                                .build(),
                        what,
                        server,
                        deadline);
                return Boolean.TRUE;
            });
            return SignOut.ENDED;
        } catch (RemoteException e) {
            if (e.isSignedOut()) {
                return SignOut.ALREADY_ENDED;
            }
            throw e;
        }
    }

    /** The server URLs this client was given. */
    public ServerUrls servers() {
        return servers;
    }

    /** A token goes into an HTTP header: visible ASCII only (RFC 6750's b64token is a subset). */
    private static void checkToken(String token) {
        if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("'token' is not a bearer token (visible ASCII)");
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("missing or non-text '" + field + "'");
        }
        return v.asText();
    }
}
