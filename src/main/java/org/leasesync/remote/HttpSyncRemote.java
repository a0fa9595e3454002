package org.leasesync.remote;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.leasesync.registry.TaskKey;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.sync.PushStatus;
import org.leasesync.sync.RemoteException;
import org.leasesync.sync.RemoteRecord;
import org.leasesync.sync.SyncRemote;

/**
 * The v1 protocol (docs/protocol.md) over OkHttp. One shared {@link OkHttpClient} (derived with
 * {@code newBuilder()} so pools and dispatchers are shared), bearer auth in an interceptor, every
 * response closed, and {@code retryOnConnectionFailure(false)}: OkHttp never resends a push on its
 * own (design.md invariant 7). Non-2xx answers become {@link RemoteException} of kind HTTP;
 * after a timeout, dropped connection or unreadable 2xx body on a push the kind is AMBIGUOUS.
 *
 * <p>Thread-safe; every call blocks on the network.
 */
public final class HttpSyncRemote implements SyncRemote {

    private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
    private static final String UNREADABLE = "the sync server sent an answer leasesync cannot read";
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private final HttpUrl base;
    private final OkHttpClient client;
    private final String clientId;

    /**
     * @param baseUrl the server, e.g. {@code http://127.0.0.1:8787}
     * @param shared the application's one OkHttp client
     * @param tokens the bearer token for a user id (null for unknown users)
     * @param clientId this device's id, sent as {@code Client-Id} with the fencing token (on pulls and pushes)
     * @throws IllegalArgumentException if the URL is not http(s)
     */
    public HttpSyncRemote(String baseUrl, OkHttpClient shared, HttpSettings timeouts, Function<String, String> tokens,
                          String clientId) {
        this.base = parseBase(baseUrl);
        Objects.requireNonNull(tokens, "tokens");
        this.clientId = Objects.requireNonNull(clientId, "clientId");
        this.client = shared.newBuilder()
                .retryOnConnectionFailure(false)
                .followRedirects(false)
                .connectTimeout(timeouts.connect())
                .readTimeout(timeouts.read())
                .writeTimeout(timeouts.read())
                .callTimeout(timeouts.call())
                .addInterceptor(new BearerAuth(tokens))
                .build();
    }

    /** A fresh shared client for the application (one per process). */
    public static OkHttpClient newSharedClient() {
        // Idle connections are dropped after 5 s, before servers usually close them, so a request
        // rarely meets a connection the server has already closed.
        return new OkHttpClient.Builder().retryOnConnectionFailure(false)
                .connectionPool(new okhttp3.ConnectionPool(5, 5, java.util.concurrent.TimeUnit.SECONDS)).build();
    }

    private static final java.util.regex.Pattern PROTOCOL_USER = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * Checks a user id against the protocol's rule ({@code [A-Za-z0-9._-]{1,64}}, docs/protocol.md §1).
     *
     * @throws IllegalArgumentException naming the id and the rule
     */
    public static String checkProtocolUserId(String user) {
        if (user == null || !PROTOCOL_USER.matcher(user).matches()) {
            throw new IllegalArgumentException("user id '" + user + "' cannot be used with a sync server: "
                    + "use 1-64 letters, digits, '.', '_' or '-'");
        }
        return user;
    }

    /**
     * Checks a server URL.
     *
     * @throws IllegalArgumentException naming the bad URL
     */
    public static HttpUrl parseBase(String url) {
        HttpUrl u = url == null ? null : HttpUrl.parse(url.trim());
        if (u == null) {
            throw new IllegalArgumentException("'" + url + "' is not an http:// or https:// URL");
        }
        return u;
    }

    @Override
    public PullPage pull(TaskKey key, Optional<String> cursor, int limit, long fencingToken, String runId) {
        HttpUrl.Builder url = scopeUrl(key).addPathSegment("changes").addQueryParameter("limit", Integer.toString(limit));
        cursor.ifPresent(c -> url.addQueryParameter("since", c));
        Request req = new Request.Builder().url(url.build()).get()
                .header("Fencing-Token", Long.toString(fencingToken))
                .header("Client-Id", clientId)
                .header("Sync-Run-Id", runId)
                .tag(UserTag.class, new UserTag(key.userId())).build();
        JsonNode body = executeSafe(req, "pull " + key);
        try {
            List<RemoteRecord> records = new ArrayList<>();
            for (JsonNode c : array(body, "changes")) {
                JsonNode payload = c.get("payload");
                records.add(new RemoteRecord(text(c, "id"), required(c, "version").asLong(),
                        c.path("deleted").asBoolean(false),
                        payload == null || payload.isNull() ? "{}" : MAPPER.writeValueAsString(payload),
                        Instant.parse(text(c, "serverTime"))));
            }
            return new PullPage(records, text(body, "nextCursor"), required(body, "hasMore").asBoolean());
        } catch (IOException | RuntimeException e) {
            throw malformed("pull " + key, e);
        }
    }

    @Override
    public PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode changes = root.putArray("changes");
        try {
            for (OutboxEntry e : batch.entries()) {
                ObjectNode c = changes.addObject();
                c.put("changeId", e.changeId());
                c.put("id", e.recordId());
                c.put("baseVersion", e.baseVersion());
                c.put("deleted", e.deleted());
                c.set("payload", MAPPER.readTree(e.payloadJson()));
            }
        } catch (IOException ex) {
            throw new IllegalStateException("an outbox entry of " + key + " holds invalid JSON: " + ex.getMessage(), ex);
        }
        String json;
        try {
            json = MAPPER.writeValueAsString(root);
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        Request req = new Request.Builder().url(scopeUrl(key).addPathSegment("changes").build())
                .post(RequestBody.create(json, JSON))
                .header("Idempotency-Key", batch.idempotencyKey())
                .header("Fencing-Token", Long.toString(fencingToken))
                .header("Client-Id", clientId)
                .header("Sync-Run-Id", runId)
                .tag(UserTag.class, new UserTag(key.userId())).build();
        JsonNode body = execute(req, "push " + batch.idempotencyKey(), true);
        try {
            return parsePushResponse(body);
        } catch (RuntimeException e) {
            throw new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, UNREADABLE,
                    "the server's answer to push " + batch.idempotencyKey() + " was unreadable (" + e.getMessage()
                            + "); it may have been applied", e);
        }
    }

    @Override
    public PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
        Request req = new Request.Builder().url(scopeUrl(key).addPathSegment("pushes").addPathSegment(idempotencyKey).build())
                .get().header("Sync-Run-Id", runId).tag(UserTag.class, new UserTag(key.userId())).build();
        JsonNode body = executeSafe(req, "query push " + idempotencyKey);
        try {
            String state = text(body, "state");
            return switch (state) {
                case "completed" -> {
                    int status = body.path("statusCode").asInt(200);
                    JsonNode resp = body.get("response");
                    yield new PushStatus(PushStatus.State.COMPLETED,
                            status == 200 && resp != null && !resp.isNull() ? Optional.of(parsePushResponse(resp)) : Optional.empty(),
                            status);
                }
                case "in_progress" -> new PushStatus(PushStatus.State.IN_PROGRESS, Optional.empty(), 0);
                case "unknown" -> new PushStatus(PushStatus.State.UNKNOWN, Optional.empty(), 0);
                default -> throw new IllegalArgumentException("unknown state '" + state + "'");
            };
        } catch (RuntimeException e) {
            throw malformed("query push " + idempotencyKey, e);
        }
    }

    private static PushResponse parsePushResponse(JsonNode body) {
        List<PushResult> results = new ArrayList<>();
        for (JsonNode r : array(body, "results")) {
            String status = text(r, "status");
            if (status.equals("applied")) {
                results.add(new PushResult(text(r, "changeId"), text(r, "id"), true, required(r, "version").asLong(),
                        r.path("duplicate").asBoolean(false), 0, false, null));
            } else if (status.equals("conflict")) {
                JsonNode sp = r.get("serverPayload");
                results.add(new PushResult(text(r, "changeId"), text(r, "id"), false, 0, false,
                        r.path("serverVersion").asLong(0), r.path("serverDeleted").asBoolean(false),
                        sp == null || sp.isNull() ? "{}" : sp.toString()));
            } else {
                throw new IllegalArgumentException("unknown result status '" + status + "'");
            }
        }
        return new PushResponse(results);
    }

    /**
     * For safe (GET) requests only: one more attempt when the connection broke (e.g. a pooled
     * connection the server had closed). Never used for pushes.
     */
    private JsonNode executeSafe(Request req, String what) {
        try {
            return execute(req, what, false);
        } catch (RemoteException e) {
            if (e.kind() == RemoteException.Kind.AMBIGUOUS && e.getCause() instanceof IOException
                    && !(e.getCause() instanceof InterruptedIOException)
                    && !(e.getCause() instanceof com.fasterxml.jackson.core.JsonProcessingException)) {
                return execute(req, what, false);
            }
            throw e;
        }
    }

    /** Executes and returns the parsed 2xx JSON body; closes the response in every case. */
    private JsonNode execute(Request req, String what, boolean isPush) {
        try (Response resp = client.newCall(req).execute()) {
            ResponseBody body = resp.body();
            String text = body.string();
            if (!resp.isSuccessful()) {
                throw httpError(resp, text, what);
            }
            MediaType type = body.contentType();
            if (type == null || !"json".equals(type.subtype())) {
                throw new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, UNREADABLE, "the sync server's answer to "
                        + what + " was not JSON: expected JSON but got content type " + type
                        + (isPush ? "; it may have been applied" : ""), null);
            }
            JsonNode node = MAPPER.readTree(text);
            if (node == null || !node.isObject()) {
                throw new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, UNREADABLE, "the sync server's answer to "
                        + what + " was malformed: expected a JSON object" + (isPush ? "; it may have been applied" : ""), null);
            }
            return node;
        } catch (RemoteException e) {
            throw e;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, UNREADABLE, "the sync server's answer to "
                    + what + " was malformed JSON (" + e.getOriginalMessage() + ")"
                    + (isPush ? "; it may have been applied" : ""), e);
        } catch (ConnectException | UnknownHostException | NoRouteToHostException e) {
            throw new RemoteException(RemoteException.Kind.NOT_SENT, 0, "", -1,
                    "cannot reach the sync server at " + base,
                    "cannot reach the sync server at " + base + " (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            boolean timeout = e instanceof InterruptedIOException;
            String how = timeout ? "timed out" : "failed (" + e.getMessage() + ")";
            String msg = what + " " + how + (isPush ? "; the server may have applied it" : "");
            throw new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, timeout
                    ? "the sync server did not answer in time" : "the connection to the sync server broke", msg, e);
        }
    }

    private RemoteException httpError(Response resp, String text, String what) {
        String code = "";
        String message = resp.message();
        try {
            JsonNode err = MAPPER.readTree(text);
            if (err != null && err.isObject()) {
                code = err.path("code").asText("");
                message = err.path("message").asText(message);
            }
        } catch (IOException | RuntimeException ignored) {
            // not our error format: keep the status line
        }
        long retryAfter = -1;
        String ra = resp.header("Retry-After");
        if (ra != null) {
            try {
                retryAfter = Math.max(0, Long.parseLong(ra.trim())) * 1000;
            } catch (NumberFormatException ignored) {
                retryAfter = -1;
            }
        }
        String plain = switch (resp.code()) {
            case 401 -> "the sync server did not accept the token";
            case 403 -> "the sync server refused access for this account";
            case 429 -> "the sync server is busy";
            case 503 -> "the sync server is unavailable";
            default -> resp.code() >= 500 ? "the sync server failed" : "the sync server refused the request";
        };
        return new RemoteException(RemoteException.Kind.HTTP, resp.code(), code, retryAfter,
                plain + " (HTTP " + resp.code() + ")",
                plain + " (HTTP " + resp.code() + (code.isEmpty() ? "" : " " + code) + " on " + what
                        + (message == null || message.isBlank() ? "" : ": " + message) + ")", null);
    }

    private RemoteException malformed(String what, Exception e) {
        return new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, UNREADABLE,
                "the sync server's answer to " + what + " was malformed (" + e.getMessage() + ")", e);
    }

    private HttpUrl.Builder scopeUrl(TaskKey key) {
        return base.newBuilder().addPathSegment("v1").addPathSegment("users").addPathSegment(key.userId())
                .addPathSegment("scopes").addPathSegment(key.scope().wireName());
    }

    private static JsonNode required(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing '" + field + "'");
        }
        return v;
    }

    private static JsonNode array(JsonNode n, String field) {
        JsonNode v = required(n, field);
        if (!v.isArray()) {
            throw new IllegalArgumentException("'" + field + "' is not an array");
        }
        return v;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = required(n, field);
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' is not a string");
        }
        return v.asText();
    }

    /** Tags a request with the user whose token it needs. */
    record UserTag(String userId) { }
}
