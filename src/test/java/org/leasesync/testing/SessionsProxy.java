package org.leasesync.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocketFactory;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.leasesync.server.ReferenceServer;

/**
 * The session layer of protocol §12 scripted on a MockWebServer, in front of the real reference
 * server for everything else: {@code POST /v1/sessions} checks a password and hands out a fresh
 * 43-character token, {@code DELETE /v1/sessions/current} ends one, and a {@code /v1/users/...}
 * request with a live session token is forwarded to the reference server (with that server's own
 * token for the user); any other token gets {@code 401 invalid_token}. The reference server on main
 * has no sessions yet: once it does, the tests using this proxy should also run against it directly.
 *
 * <p>Records every request's method, path and whether it carried an {@code Authorization} header.
 * Thread-safe.
 */
public final class SessionsProxy implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");

    private final ReferenceServer server;
    private final MockWebServer web = new MockWebServer();
    private final Map<String, String> passwords = new ConcurrentHashMap<>();
    private final Map<String, String> live = new ConcurrentHashMap<>();
    private final AtomicInteger failures = new AtomicInteger();
    private final SecureRandom random = new SecureRandom();
    /** "METHOD PATH auth|noauth", in order. */
    public final List<String> requests = new CopyOnWriteArrayList<>();
    /** Bodies of the sign-in requests as received. */
    public final List<String> signInBodies = new CopyOnWriteArrayList<>();
    /** Failed sign-ins after which the proxy answers 429 (0: never). */
    public volatile int lockAfterFailures;
    /** Bodies of the pushes forwarded. */
    public final List<String> pushes = new CopyOnWriteArrayList<>();
    /**
     * The next push is forwarded (the reference server applies it), its answer lost on the way back (the
     * connection closes), and every session of its user ends at that moment: the client's question about
     * the push then meets {@code 401}.
     */
    public volatile boolean loseNextPushAnswerAndRevoke;
    /** The sessions of a user end just before the next push of that user arrives (it is refused). */
    public volatile boolean revokeBeforeNextPush;

    /** @param server the reference server the data requests go to; null: none (sign-in only) */
    public SessionsProxy(ReferenceServer server) {
        this.server = server;
        web.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest req) {
                return answer(req);
            }
        });
    }

    /** Serves HTTPS with this socket factory (a test certificate), before {@link #start()}. */
    public SessionsProxy https(SSLSocketFactory factory) {
        web.useHttps(factory);
        return this;
    }

    public SessionsProxy start() throws IOException {
        web.start(java.net.InetAddress.getByName("127.0.0.1"), 0);
        return this;
    }

    /** A user who may sign in with {@code password}. */
    public SessionsProxy user(String user, String password) {
        passwords.put(user, password);
        return this;
    }

    /** The base URL, e.g. {@code http://127.0.0.1:41234/}. */
    public String url() {
        return web.url("/").toString();
    }

    /** The live session tokens and their users. */
    public Map<String, String> liveSessions() {
        return Map.copyOf(live);
    }

    /** Ends every session of {@code user}, as an operator revoking them (or disabling the user) would. */
    public void revokeAll(String user) {
        live.values().removeIf(user::equals);
    }

    private MockResponse answer(RecordedRequest req) {
        String path = req.getUrl().encodedPath();
        String auth = req.getHeaders().get("Authorization");
        requests.add(req.getMethod() + " " + path + " " + (auth == null ? "noauth" : "auth"));
        String body = req.getBody() == null ? "" : req.getBody().utf8();
        if (path.equals("/v1/sessions") && req.getMethod().equals("POST")) {
            signInBodies.add(body);
            return signIn(body);
        }
        String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
        if (revokeBeforeNextPush && req.getMethod().equals("POST") && token != null && live.containsKey(token)) {
            revokeBeforeNextPush = false;
            revokeAll(live.get(token));
        }
        String user = token == null ? null : live.get(token);
        if (path.equals("/v1/sessions/current") && req.getMethod().equals("DELETE")) {
            if (user == null) {
                return invalidToken();
            }
            live.remove(token);
            return new MockResponse.Builder().code(204).build();
        }
        if (user == null) {
            return invalidToken();
        }
        if (server == null) {
            return json(404, "{\"code\":\"not_found\",\"message\":\"no such endpoint\"}");
        }
        if (req.getMethod().equals("POST")) {
            pushes.add(body);
            if (loseNextPushAnswerAndRevoke) {
                loseNextPushAnswerAndRevoke = false;
                forward(req, body, server.tokenFor(user));
                revokeAll(user);
                return new MockResponse.Builder().onResponseStart(new mockwebserver3.SocketEffect.CloseSocket()).build();
            }
        }
        return forward(req, body, server.tokenFor(user));
    }

    private MockResponse signIn(String body) {
        try {
            JsonNode b = JSON.readTree(body);
            String user = b.path("user").asText("");
            String password = b.path("password").asText("");
            if (lockAfterFailures > 0 && failures.get() >= lockAfterFailures) {
                return new MockResponse.Builder().code(429).addHeader("Content-Type", "application/json")
                        .addHeader("Retry-After", "90")
                        .body("{\"code\":\"too_many_attempts\",\"message\":\"too many failed sign-ins\"}").build();
            }
            if (!password.equals(passwords.get(user))) {
                failures.incrementAndGet();
                return json(401, "{\"code\":\"invalid_credentials\",\"message\":\"wrong user name or password\"}");
            }
            byte[] raw = new byte[32];
            random.nextBytes(raw);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
            live.put(token, user);
            return json(201, "{\"token\":\"" + token + "\",\"sessionId\":\"s-" + live.size() + "\",\"user\":\"" + user
                    + "\",\"admin\":false,\"expiresAt\":\"2027-03-01T10:00:00Z\"}");
        } catch (IOException e) {
            return json(400, "{\"code\":\"bad_request\",\"message\":\"malformed JSON\"}");
        }
    }

    private static MockResponse invalidToken() {
        return new MockResponse.Builder().code(401).addHeader("Content-Type", "application/json")
                .addHeader("WWW-Authenticate", "Bearer realm=\"leasesync\", error=\"invalid_token\"")
                .body("{\"code\":\"invalid_token\",\"message\":\"the session has ended\"}").build();
    }

    private static MockResponse json(int code, String body) {
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json").body(body).build();
    }

    private MockResponse forward(RecordedRequest req, String body, String serverToken) {
        Request.Builder out = new Request.Builder().url(okhttp3.HttpUrl.get(server.baseUrl()).resolve(req.getTarget()));
        out.header("Authorization", "Bearer " + serverToken);
        for (String name : List.of("Idempotency-Key", "Fencing-Token", "Client-Id", "Sync-Run-Id")) {
            String v = req.getHeaders().get(name);
            if (v != null) {
                out.header(name, v);
            }
        }
        out.method(req.getMethod(), req.getMethod().equals("GET") ? null : RequestBody.create(body, JSON_TYPE));
        try (Response r = ClientStack.HTTP.newCall(out.build()).execute()) {
            MockResponse.Builder back = new MockResponse.Builder().code(r.code()).body(r.body().string());
            for (String name : List.of("Content-Type", "Retry-After", "Idempotent-Replayed")) {
                String v = r.header(name);
                if (v != null) {
                    back.addHeader(name, v);
                }
            }
            return back.build();
        } catch (IOException | RuntimeException e) {
            return new MockResponse.Builder().code(502).body("proxy: " + e).build();
        }
    }

    @Override
    public void close() {
        web.close();
    }
}
