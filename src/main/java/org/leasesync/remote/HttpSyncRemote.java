package org.leasesync.remote;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.io.IOException;
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
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.protocol.RecordLimits;
import org.leasesync.sync.OutboxEntry;
import org.leasesync.sync.PullPage;
import org.leasesync.sync.PushBatch;
import org.leasesync.sync.PushResponse;
import org.leasesync.sync.PushResult;
import org.leasesync.sync.PushStatus;
import org.leasesync.sync.RemoteException;
import org.leasesync.sync.SyncRemote;
import org.leasesync.sync.UnsendableEntryException;

/**
 * The v1 protocol (docs/protocol.md) over OkHttp. One shared {@link OkHttpClient} (derived with
 * {@code newBuilder()} so pools and dispatchers are shared), bearer auth in an interceptor, every
 * response closed, and {@code retryOnConnectionFailure(false)}: OkHttp never resends a push on its
 * own (invariant 7, query before retry: docs/architecture.md). Non-2xx answers become {@link
 * RemoteException} of kind HTTP;
 * after a timeout, dropped connection, unreadable 2xx body or a gateway's {@code 502}/{@code 504}
 * on a push the kind is AMBIGUOUS.
 *
 * <p>With several server URLs ({@link ServerUrls}) every failed attempt is classified
 * ({@link FailureClass}): a pull or a push-status query goes to the next URL after any failure, a
 * frozen instance's timeout included; a push goes to the next only when it certainly did nothing
 * there (never sent, refused, {@code 503}). The instance that last took a request stays in use,
 * unless a failure made it avoided for a while ({@link Failover}). An ambiguous push is never resent
 * elsewhere: the caller queries its idempotency key, and that query may be answered by any instance.
 *
 * <p>Thread-safe; every call blocks on the network, at most the call timeout in all.
 */
public final class HttpSyncRemote implements SyncRemote {

    private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
    /**
     * Parses answers within the limits every protocol message keeps ({@link RecordLimits}), and
     * ignores fields a newer server adds. Its own mapper, not one of {@code JsonMappers}': the
     * limits are the protocol's, bounding what an untrusted server may make this process hold.
     */
    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(RecordLimits.MAX_MESSAGE_DEPTH)
                            .maxStringLength(RecordLimits.MAX_PAYLOAD_BYTES)
                            .build())
                    .build())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static final PullPageReader PAGES = new PullPageReader(MAPPER.getFactory());

    private final ServerUrls servers;
    private final Exchange exchange;
    private final Failover failover;
    private final String clientId;

    /**
     * One server, or several separated by commas ({@link ServerUrls#parse}).
     *
     * @throws IllegalArgumentException naming the bad URL
     */
    public HttpSyncRemote(
            String baseUrl,
            OkHttpClient shared,
            HttpSettings timeouts,
            Function<String, String> tokens,
            String clientId) {
        this(ServerUrls.parse(baseUrl), shared, timeouts, tokens, clientId);
    }

    /**
     * @param servers the server, or the instances of a cluster that all serve the same data, in order of preference
     * @param shared the application's one OkHttp client
     * @param timeouts connect and read per attempt; the call timeout bounds all attempts of one call together
     * @param tokens the bearer token for a user id (null for unknown users)
     * @param clientId this device's id, sent as {@code Client-Id} with the fencing token (on pulls and pushes)
     */
    public HttpSyncRemote(
            ServerUrls servers,
            OkHttpClient shared,
            HttpSettings timeouts,
            Function<String, String> tokens,
            String clientId) {
        this(servers, shared, timeouts, tokens, clientId, TimeSource.system());
    }

    /**
     * @param servers the server, or the instances of a cluster that all serve the same data, in order of preference
     * @param shared the application's one OkHttp client
     * @param timeouts connect and read per attempt; the call timeout bounds all attempts of one call together
     * @param tokens the bearer token for a user id (null for unknown users)
     * @param clientId this device's id, sent as {@code Client-Id} with the fencing token (on pulls and pushes)
     * @param time the wall clock an HTTP-date {@code Retry-After} is read against
     */
    public HttpSyncRemote(
            ServerUrls servers,
            OkHttpClient shared,
            HttpSettings timeouts,
            Function<String, String> tokens,
            String clientId,
            TimeSource time) {
        this.servers = Objects.requireNonNull(servers, "servers");
        Objects.requireNonNull(tokens, "tokens");
        this.clientId = Objects.requireNonNull(clientId, "clientId");
        this.exchange = new Exchange(
                Exchange.clientFor(shared, timeouts)
                        .addInterceptor(new BearerAuth(tokens))
                        .build(),
                MAPPER,
                new WallClock(time));
        this.failover = new Failover(servers, timeouts.call());
    }

    /** The server URLs this remote was given. */
    public ServerUrls servers() {
        return servers;
    }

    /** The URL the next call starts at: the one that last took a request. */
    public HttpUrl currentServer() {
        return failover.current();
    }

    /** A fresh shared client for the application (one per process), for http and https servers. */
    public static OkHttpClient newSharedClient() {
        return sharedClientBuilder().build();
    }

    /**
     * A fresh shared client for the application (one per process) that talks to {@code servers} only.
     * When none of them is {@code https}, the client is cleartext-only: OkHttp then builds no TLS
     * socket factory and loads no trust store (the JDK's ~150 CA certificates and ~350 security
     * classes, several MB of a window's memory; docs/benchmarks.md). Such a client
     * fails a call to an {@code https} URL with an {@code IOException}. The URLs are not checked for
     * plain http to other machines here (see {@link #newSharedClient(ServerUrls, TransportSecurity)}).
     */
    public static OkHttpClient newSharedClient(ServerUrls servers) {
        return TransportSecurity.DEFAULT
                .configure(sharedClientBuilder(), servers)
                .build();
    }

    /**
     * As {@link #newSharedClient(ServerUrls)}, trusting the system's authorities plus
     * {@code transport}'s CA file for {@code https} servers; an untrusted server certificate fails a
     * call with a {@link CertificateNotTrustedException}.
     *
     * @throws IllegalArgumentException for a plain {@code http://} URL to another machine, unless allowed
     */
    public static OkHttpClient newSharedClient(ServerUrls servers, TransportSecurity transport) {
        transport.check(servers);
        return transport.configure(sharedClientBuilder(), servers).build();
    }

    private static OkHttpClient.Builder sharedClientBuilder() {
        // Idle connections are dropped after 5 s, before servers usually close them, so a request
        // rarely meets a connection the server has already closed.
        return new OkHttpClient.Builder()
                .retryOnConnectionFailure(false)
                .connectionPool(new okhttp3.ConnectionPool(5, 5, java.util.concurrent.TimeUnit.SECONDS));
    }

    private static final java.util.regex.Pattern PROTOCOL_USER =
            java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

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

    @Override
    public PullPage pull(
            TaskKey key,
            Optional<String> cursor,
            Optional<String> pushedPosition,
            int limit,
            long fencingToken,
            String runId) {
        String what = "pull " + key;
        return failover.call(what, Failover.Mode.READ, (base, server, deadline) -> {
            HttpUrl.Builder url =
                    scopeUrl(base, key).addPathSegment("changes").addQueryParameter("limit", Integer.toString(limit));
            cursor.ifPresent(c -> url.addQueryParameter("since", c));
            pushedPosition.ifPresent(p -> url.addQueryParameter("pushed", p));
            Request req = new Request.Builder()
                    .url(url.build())
                    .get()
                    .header("Fencing-Token", Long.toString(fencingToken))
                    .header("Client-Id", clientId)
                    .header("Sync-Run-Id", runId)
                    .tag(UserTag.class, new UserTag(key.userId()))
                    .build();
            // streamed into records, payloads kept as sent: no tree, nothing written out again
            return exchange.safe(req, what, server, deadline, PAGES::read);
        });
    }

    @Override
    public PushResponse push(TaskKey key, PushBatch batch, long fencingToken, String runId) {
        String json = pushBody(batch);
        String what = "push " + batch.idempotencyKey();
        RequestBody content = RequestBody.create(json, JSON);
        JsonNode body = failover.call(
                what,
                Failover.Mode.ONCE,
                (base, server, deadline) -> exchange.push(
                        new Request.Builder()
                                .url(scopeUrl(base, key)
                                        .addPathSegment("changes")
                                        .build())
                                .post(content)
                                .header("Idempotency-Key", batch.idempotencyKey())
                                .header("Fencing-Token", Long.toString(fencingToken))
                                .header("Client-Id", clientId)
                                .header("Sync-Run-Id", runId)
                                .tag(UserTag.class, new UserTag(key.userId()))
                                .build(),
                        what,
                        server,
                        deadline));
        try {
            return parsePushResponse(body);
        } catch (RuntimeException e) {
            throw new RemoteException(
                    RemoteException.Kind.AMBIGUOUS,
                    0,
                    "",
                    -1,
                    Exchange.UNREADABLE,
                    "the server's answer to push " + batch.idempotencyKey() + " was unreadable (" + e.getMessage()
                            + "); it may have been applied",
                    e);
        }
    }

    /**
     * The body of a push (docs/protocol.md §5): each entry's stored payload is written as it is (so
     * its size is known when the edit is made, {@link org.leasesync.sync.PushLimits}) after checking
     * that it is one JSON object.
     *
     * @throws UnsendableEntryException naming the first entry beyond the record limits
     *     ({@link RecordLimits}: its payload is not a JSON object, nests too deep, is too large, ...)
     */
    static String pushBody(PushBatch batch) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode changes = root.putArray("changes");
        for (OutboxEntry e : batch.entries()) {
            checkPayload(e);
            ObjectNode c = changes.addObject();
            c.put("changeId", e.changeId());
            c.put("id", e.recordId());
            c.put("baseVersion", e.baseVersion());
            c.put("deleted", e.deleted());
            c.putRawValue("payload", new RawValue(e.payloadJson()));
        }
        try {
            return MAPPER.writeValueAsString(root);
        } catch (IOException ex) {
            throw new IllegalStateException("could not write a push body: " + ex.getMessage(), ex);
        }
    }

    /** Refuses an entry beyond the record limits before anything is sent, naming it. */
    private static void checkPayload(OutboxEntry e) {
        java.util.Optional<String> problem = RecordLimits.idProblem(e.recordId(), "record id");
        if (problem.isEmpty() && !e.deleted()) {
            problem = PayloadJson.problem(e.payloadJson());
        }
        if (problem.isPresent()) {
            throw new UnsendableEntryException(
                    e.changeId(),
                    "the edit of record '" + RecordLimits.shown(e.recordId()) + "' cannot be sent: " + problem.get());
        }
    }

    @Override
    public PushStatus pushStatus(TaskKey key, String idempotencyKey, String runId) {
        String what = "query push " + idempotencyKey;
        // push status is cluster-wide: any instance can settle an ambiguous push, so a query goes on after any failure
        JsonNode body = failover.call(
                what,
                Failover.Mode.READ,
                (base, server, deadline) -> exchange.safe(
                        new Request.Builder()
                                .url(scopeUrl(base, key)
                                        .addPathSegment("pushes")
                                        .addPathSegment(idempotencyKey)
                                        .build())
                                .get()
                                .header("Sync-Run-Id", runId)
                                .tag(UserTag.class, new UserTag(key.userId()))
                                .build(),
                        what,
                        server,
                        deadline));
        try {
            String state = text(body, "state");
            return switch (state) {
                case "completed" -> {
                    int status = body.path("statusCode").asInt(200);
                    JsonNode resp = body.get("response");
                    yield new PushStatus(
                            PushStatus.State.COMPLETED,
                            status == 200 && resp != null && !resp.isNull()
                                    ? Optional.of(parsePushResponse(resp))
                                    : Optional.empty(),
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
                results.add(new PushResult(
                        text(r, "changeId"),
                        text(r, "id"),
                        true,
                        required(r, "version").asLong(),
                        r.path("duplicate").asBoolean(false),
                        0,
                        false,
                        null));
            } else if (status.equals("conflict")) {
                JsonNode sp = r.get("serverPayload");
                results.add(new PushResult(
                        text(r, "changeId"),
                        text(r, "id"),
                        false,
                        0,
                        false,
                        r.path("serverVersion").asLong(0),
                        r.path("serverDeleted").asBoolean(false),
                        sp == null || sp.isNull() ? "{}" : sp.toString()));
            } else {
                throw new IllegalArgumentException("unknown result status '" + status + "'");
            }
        }
        JsonNode position = body.get("position");
        return new PushResponse(
                results, position == null || position.isNull() ? Optional.empty() : Optional.of(position.asText()));
    }

    private RemoteException malformed(String what, Exception e) {
        return new RemoteException(
                RemoteException.Kind.AMBIGUOUS,
                0,
                "",
                -1,
                Exchange.UNREADABLE,
                "the sync server's answer to " + what + " was malformed (" + e.getMessage() + ")",
                e);
    }

    private static HttpUrl.Builder scopeUrl(HttpUrl base, TaskKey key) {
        return base.newBuilder()
                .addPathSegment("v1")
                .addPathSegment("users")
                .addPathSegment(key.userId())
                .addPathSegment("scopes")
                .addPathSegment(key.scope().wireName());
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
    record UserTag(String userId) {}
}
