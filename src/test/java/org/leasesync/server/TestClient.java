package org.leasesync.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** A small protocol client for tests: real HTTP over loopback, never retries by itself. */
public final class TestClient {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");
    private static final OkHttpClient SHARED = new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .readTimeout(10, TimeUnit.SECONDS)
            .build();

    /** A response, fully read. */
    public record Resp(int status, Map<String, String> headers, String body) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private final ReferenceServer server;
    private final OkHttpClient http;

    /** A client with its own connection pool, so no pooled connection outlives its server. */
    public TestClient(ReferenceServer server) {
        this(
                server,
                SHARED.newBuilder().connectionPool(new okhttp3.ConnectionPool()).build());
    }

    public TestClient(ReferenceServer server, OkHttpClient http) {
        this.server = server;
        this.http = http;
    }

    static String changesPath(String user, String scope) {
        return "/v1/users/" + user + "/scopes/" + scope + "/changes";
    }

    public Resp pull(String user, String scope, String query) throws IOException {
        return get(changesPath(user, scope) + (query == null ? "" : "?" + query), server.tokenFor(user), Map.of());
    }

    public Resp push(String user, String scope, String key, String body) throws IOException {
        Map<String, String> h = new LinkedHashMap<>();
        if (key != null) {
            h.put("Idempotency-Key", key);
        }
        return post(changesPath(user, scope), server.tokenFor(user), h, body);
    }

    Resp pushStatus(String user, String scope, String key) throws IOException {
        return get("/v1/users/" + user + "/scopes/" + scope + "/pushes/" + key, server.tokenFor(user), Map.of());
    }

    /** {@code GET /v1/admin/audit} with the admin token; {@code query} may be null. */
    Resp adminAudit(String query) throws IOException {
        return get("/v1/admin/audit" + (query == null ? "" : "?" + query), server.adminToken(), Map.of());
    }

    public Resp adminStats() throws IOException {
        return get("/v1/admin/stats", server.adminToken(), Map.of());
    }

    /** {@code GET /v1/admin/jobs} with the admin token. */
    Resp adminJobs() throws IOException {
        return get("/v1/admin/jobs", server.adminToken(), Map.of());
    }

    /** {@code POST /v1/admin/jobs/{name}/run} with the admin token. */
    Resp runJob(String name) throws IOException {
        return post("/v1/admin/jobs/" + name + "/run", server.adminToken(), Map.of(), "");
    }

    /** A deletion of record {@code id}, based on {@code baseVersion}. */
    static ObjectNode deletion(String changeId, String id, long baseVersion) {
        ObjectNode c = JSON.createObjectNode();
        c.put("changeId", changeId);
        c.put("id", id);
        c.put("baseVersion", baseVersion);
        c.put("deleted", true);
        return c;
    }

    Resp get(String path, String token, Map<String, String> headers) throws IOException {
        return call(builder(path, token, headers).get().build());
    }

    Resp post(String path, String token, Map<String, String> headers, String body) throws IOException {
        return call(builder(path, token, headers)
                .post(RequestBody.create(body, JSON_TYPE))
                .build());
    }

    Resp put(String path, String token, String body) throws IOException {
        return call(builder(path, token, Map.of())
                .put(RequestBody.create(body, JSON_TYPE))
                .build());
    }

    Request.Builder builder(String path, String token, Map<String, String> headers) {
        Request.Builder b = new Request.Builder().url(server.baseUrl() + path);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        headers.forEach(b::header);
        return b;
    }

    Resp call(Request request) throws IOException {
        try (Response r = http.newCall(request).execute()) {
            Map<String, String> h = new LinkedHashMap<>();
            r.headers().names().forEach(n -> h.put(n.toLowerCase(java.util.Locale.ROOT), r.header(n)));
            return new Resp(r.code(), h, r.body().string());
        }
    }

    /** A push body with one change. */
    public static String oneChange(String changeId, String id, long baseVersion, String payloadJson) {
        return body(change(changeId, id, baseVersion, payloadJson));
    }

    static ObjectNode change(String changeId, String id, long baseVersion, String payloadJson) {
        ObjectNode c = JSON.createObjectNode();
        c.put("changeId", changeId);
        c.put("id", id);
        c.put("baseVersion", baseVersion);
        c.put("deleted", false);
        try {
            c.set("payload", JSON.readTree(payloadJson));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return c;
    }

    static String body(ObjectNode... changes) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode arr = root.putArray("changes");
        for (ObjectNode c : changes) {
            arr.add(c);
        }
        return root.toString();
    }

    static String newId() {
        return UUID.randomUUID().toString();
    }
}
