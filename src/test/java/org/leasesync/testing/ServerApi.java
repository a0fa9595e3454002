package org.leasesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.tls.HandshakeCertificates;

/**
 * What a test does to a real sync server besides running the client: another device of the user
 * signing in, listing and revoking sessions (protocol §12), reading what the server holds (a pull,
 * §4) and the server's own count of the requests it answered ({@code /metrics}, §11) — so a test
 * sees the server's side of what the client did, not a recording of its own. The token of such a
 * session is the test's, never the client's.
 *
 * <p>Immutable and thread-safe; every method blocks on one request (a few for {@link #records}).
 */
public final class ServerApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");
    /** Over plain HTTP, or HTTPS to a server whose certificate the JDK trusts. */
    public static final ServerApi PLAIN = new ServerApi(new OkHttpClient.Builder());

    private final OkHttpClient http;

    private ServerApi(OkHttpClient.Builder b) {
        // No retries (a test counts requests), so no pooled connections either: the JDK server closes
        // an idle one after its idle interval, and a call on it would fail instead of being retried.
        this.http = b.retryOnConnectionFailure(false)
                .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
                .followRedirects(false)
                .callTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** Over HTTPS to a server that presents {@code certificate} (a test's self-signed one), and plain HTTP. */
    public static ServerApi trusting(X509Certificate certificate) {
        HandshakeCertificates trust = new HandshakeCertificates.Builder()
                .addTrustedCertificate(certificate)
                .build();
        return new ServerApi(
                new OkHttpClient.Builder().sslSocketFactory(trust.sslSocketFactory(), trust.trustManager()));
    }

    /** A session a test signed in (for another device of the user than the client under test). */
    public record Session(String url, String user, String token, String sessionId) {
        /** Never the token. */
        @Override
        public String toString() {
            return "Session[" + user + " at " + url + ", " + sessionId + "]";
        }
    }

    /** An answer: its status and JSON body (an empty object for none). */
    public record Answer(int status, JsonNode body) {}

    /** {@code POST /v1/sessions}. */
    public Answer signInAnswer(String url, String user, String password, String device) {
        ObjectNode body = JSON.createObjectNode()
                .put("user", user)
                .put("password", password)
                .put("device", device);
        return call(new Request.Builder()
                .url(base(url) + "v1/sessions")
                .post(RequestBody.create(body.toString(), JSON_TYPE))
                .build());
    }

    /** Signs in as another device of {@code user}; fails the test unless the server answers 201. */
    public Session signIn(String url, String user, String password, String device) {
        Answer a = signInAnswer(url, user, password, device);
        assertThat(a.status())
                .as("sign-in of %s at %s: %s", user, url, a.body())
                .isEqualTo(201);
        return new Session(
                url,
                user,
                a.body().get("token").asText(),
                a.body().get("sessionId").asText());
    }

    /** {@code GET /v1/sessions} with {@code token}: the status (401 once the session ended). */
    public int sessionsStatus(String url, String token) {
        return call(new Request.Builder()
                        .url(base(url) + "v1/sessions")
                        .header("Authorization", "Bearer " + token)
                        .build())
                .status();
    }

    /** The caller's live sessions: {@code sessionId}, {@code device}, {@code current}, … */
    public List<JsonNode> sessions(Session as) {
        Answer a = call(new Request.Builder()
                .url(base(as.url()) + "v1/sessions")
                .header("Authorization", "Bearer " + as.token())
                .build());
        assertThat(a.status()).as(a.body().toString()).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        a.body().get("sessions").forEach(out::add);
        return out;
    }

    /** {@code DELETE /v1/sessions/{id}}: the user revokes one of their devices. Returns the status. */
    public int revoke(Session as, String sessionId) {
        return call(new Request.Builder()
                        .url(base(as.url()) + "v1/sessions/" + sessionId)
                        .header("Authorization", "Bearer " + as.token())
                        .delete()
                        .build())
                .status();
    }

    /** Revokes every session of the user but {@code as}'s own; returns the devices revoked. */
    public List<String> revokeOthers(Session as) {
        List<String> devices = new ArrayList<>();
        for (JsonNode s : sessions(as)) {
            if (!s.path("current").asBoolean()) {
                assertThat(revoke(as, s.get("sessionId").asText())).isEqualTo(204);
                devices.add(s.path("device").asText());
            }
        }
        return devices;
    }

    /** {@code DELETE /v1/sessions/current}. Returns the status. */
    public int signOut(Session s) {
        return call(new Request.Builder()
                        .url(base(s.url()) + "v1/sessions/current")
                        .header("Authorization", "Bearer " + s.token())
                        .delete()
                        .build())
                .status();
    }

    /** What the server holds of the user's scope: record id to its latest payload (JSON text; "deleted" for a tombstone). */
    public Map<String, String> records(Session as, String scope) {
        Map<String, String> out = new LinkedHashMap<>();
        String cursor = null;
        while (true) {
            String q = base(as.url()) + "v1/users/" + as.user() + "/scopes/" + scope + "/changes?limit=1000"
                    + (cursor == null ? "" : "&since=" + cursor);
            Answer a = call(new Request.Builder()
                    .url(q)
                    .header("Authorization", "Bearer " + as.token())
                    .build());
            assertThat(a.status()).as(a.body().toString()).isEqualTo(200);
            for (JsonNode c : a.body().get("changes")) {
                out.put(
                        c.get("id").asText(),
                        c.path("deleted").asBoolean()
                                ? "deleted"
                                : c.get("payload").toString());
            }
            cursor = a.body().get("nextCursor").asText();
            if (!a.body().path("hasMore").asBoolean()) {
                return out;
            }
        }
    }

    /**
     * How many requests of {@code endpoint} ({@code pull}, {@code push}, {@code push_status},
     * {@code sessions}, …) this server instance answered with {@code status}, by its own metrics.
     */
    public long requests(String url, String endpoint, int status) {
        Request r = new Request.Builder().url(base(url) + "metrics").build();
        try (Response res = http.newCall(r).execute()) {
            String text = res.body().string();
            long n = 0;
            for (String line : text.split("\n")) {
                if (line.startsWith("leasesync_server_requests_seconds_count{")
                        && line.contains("endpoint=\"" + endpoint + "\"")
                        && line.contains("status=\"" + status + "\"")) {
                    n += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + r.url() + ": " + e.getMessage(), e);
        }
    }

    private Answer call(Request r) {
        try (Response res = http.newCall(r).execute()) {
            String text = res.body().string();
            return new Answer(res.code(), text.isBlank() ? JSON.createObjectNode() : JSON.readTree(text));
        } catch (IOException e) {
            throw new UncheckedIOException(r.method() + " " + r.url() + ": " + e.getMessage(), e);
        }
    }

    private static String base(String url) {
        return url.endsWith("/") ? url : url + "/";
    }
}
