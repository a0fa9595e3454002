package org.leasesync.server.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.SQLTransientException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.leasesync.server.faults.FaultSwitches;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.PathSegments;
import org.leasesync.server.protocol.ProtocolHeaders;
import org.leasesync.server.protocol.Scopes;
import org.leasesync.server.store.AccountStore;
import org.leasesync.server.store.AuditLog;
import org.leasesync.server.store.DatabaseErrors;
import org.leasesync.server.store.RequestAudit;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.SessionStore.Session;
import org.leasesync.server.store.StatsStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one {@link HttpHandler}: decodes the path, routes, applies request faults and auth in the
 * documented order (docs/protocol.md §3), runs the endpoint, turns errors into JSON bodies (a
 * database that cannot be reached → {@code 503 unavailable} with {@code Retry-After}, never a 500),
 * writes the request's audit row unless the endpoint committed it with its own transaction (best
 * effort: a failure is logged and never changes the answer), finishes the request before its
 * answer goes out (releases its idempotency-key claim, records its run interval and its metrics, so
 * that a client holding its answer finds it counted), sends the reply, and ends in
 * {@link #requestDone}, which logs every request's outcome. {@code GET /metrics} is routed like
 * {@code /health}: no token, not audited, and a successful scrape is not counted in the request
 * metrics.
 *
 * <p>Thread-safe; called concurrently on the server's executor threads.
 */
public final class ApiRouter implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiRouter.class);
    private static final String JSON = "application/json; charset=utf-8";

    private final Authenticator auth;
    private final FaultSwitches faults;
    private final StatsStore stats;
    private final AuditLog audits;
    private final Clock clock;
    private static final java.time.format.DateTimeFormatter HTTP_DATE = java.time.format.DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.ROOT)
            .withZone(java.time.ZoneOffset.UTC);
    private final ServerMetrics metrics;
    private final Map<String, Handler> health;
    private final Map<String, Handler> scrape;
    private final Map<String, Handler> changes;
    private final Map<String, Handler> pushStatus;
    private final Map<String, Map<String, Handler>> admin;
    private final Map<String, Handler> jobRun;
    private final Map<String, Handler> sessions;
    private final Map<String, Handler> oneSession;
    private volatile boolean closing;
    private volatile boolean databaseDown;

    public ApiRouter(
            Authenticator auth,
            FaultSwitches faults,
            StatsStore stats,
            AuditLog audits,
            Clock clock,
            ServerMetrics metrics,
            Handler health,
            PullHandler pull,
            PushHandler push,
            PushStatusHandler status,
            AdminHandlers adminHandlers,
            SessionHandlers sessionHandlers) {
        this.auth = auth;
        this.faults = faults;
        this.stats = stats;
        this.audits = audits;
        this.clock = clock;
        this.metrics = metrics;
        this.health = Map.of("GET", health);
        this.scrape = Map.of("GET", ctx -> Reply.text(200, ServerMetrics.CONTENT_TYPE, metrics.scrape()));
        this.changes = Map.of("GET", pull, "POST", push);
        this.pushStatus = Map.of("GET", status);
        this.admin = Map.of(
                "stats", Map.of("GET", adminHandlers::stats),
                "reset-stats", Map.of("POST", adminHandlers::resetStats),
                "faults", Map.of("GET", adminHandlers::getFaults, "PUT", adminHandlers::putFaults),
                "audit", Map.of("GET", adminHandlers::audit),
                "jobs", Map.of("GET", adminHandlers::jobs));
        this.jobRun = Map.of("POST", adminHandlers::runJob);
        this.sessions = Map.of("POST", sessionHandlers::signIn, "GET", sessionHandlers::list);
        this.oneSession = Map.of("DELETE", sessionHandlers::revoke);
    }

    /** From now on every request gets 503. */
    public void closing() {
        closing = true;
    }

    @Override
    public void handle(HttpExchange ex) {
        long startNanos = System.nanoTime();
        Instant arrival = clock.instant();
        String rawPath = ex.getRequestURI().getRawPath();
        RequestAudit audit = audits.begin(ex.getRequestMethod(), rawPath, ex.getRequestHeaders());
        Routed ctx = null;
        Reply reply = null;
        ApiError error = null;
        try {
            ctx = routeOrFail(ex, rawPath, arrival, audit);
            reply = ctx.handler().handle(ctx.request());
        } catch (ApiError e) {
            error = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = new ApiError(503, "unavailable", "server is shutting down", 1);
        } catch (Exception e) {
            error = unexpected(ex.getRequestMethod(), rawPath, e);
        }
        if (error != null) {
            reply = errorReply(error);
        } else if (databaseDown && reply.status() < 500) {
            databaseDown = false;
            log.info("the server database answers again");
        }
        auditUnlessWritten(audit, ex, rawPath, reply, error);
        finishBeforeSend(ctx, reply, arrival);
        metrics.requestDone(
                RequestEndpoint.of(ex.getRequestMethod(), rawPath), reply, error, System.nanoTime() - startNanos);
        try {
            send(ex, reply);
        } catch (IOException e) {
            log.debug("could not send response to {} {}: {}", ex.getRequestMethod(), rawPath, e.toString());
        } finally {
            ex.close();
            requestDone(ex.getRequestMethod(), rawPath, ctx, reply, System.nanoTime() - startNanos);
        }
    }

    /**
     * The answer to an exception that is not an {@link ApiError}: 503 when the database cannot be
     * reached (or a transaction lost a race a retry may win), with a message that says when a
     * push's outcome is unknown; 500 for anything else (logged with its stack trace, never sent).
     */
    private ApiError unexpected(String method, String rawPath, Exception e) {
        if (e instanceof PushService.CommitOutcomeUnknown) {
            metrics.commitOutcomeUnknown();
            log.warn(
                    "database connection lost while committing {} {}: outcome unknown: {}",
                    method,
                    rawPath,
                    e.getCause() == null ? e.toString() : e.getCause().toString());
            return new ApiError(
                    503,
                    "unavailable",
                    "the database connection broke while this push was being"
                            + " committed: it may or may not have been applied; ask about its Idempotency-Key"
                            + " (GET .../pushes/{key}) before sending it again",
                    1);
        }
        if (e instanceof SQLTransientException || DatabaseErrors.isUnavailable(e)) {
            metrics.databaseUnavailable();
            if (!databaseDown) {
                databaseDown = true;
                log.warn(
                        "the server database is unavailable; answering 503 until it is back ({} {}: {})",
                        method,
                        rawPath,
                        ServerDatabase.rootMessage(e));
            } else {
                log.debug("database unavailable for {} {}: {}", method, rawPath, e.toString());
            }
            return new ApiError(503, "unavailable", "the server database is temporarily unavailable; retry later", 1);
        }
        log.error("request {} {} failed", method, rawPath, e);
        return new ApiError(500, "internal_error", "internal server error");
    }

    /**
     * Runs the reply's before-send action (releasing a push's idempotency-key claim) and records
     * the request in its run's interval. Best effort, with the thread's interrupt flag cleared so a
     * request interrupted by shutdown still releases its claim: a failure is logged and never
     * changes the answer.
     */
    private void finishBeforeSend(Routed ctx, Reply reply, Instant arrival) {
        boolean interrupted = Thread.interrupted();
        try {
            reply.beforeSend().run();
            if (ctx != null && ctx.request().runId() != null) {
                RequestContext r = ctx.request();
                stats.recordRun(r.user(), r.scope(), r.runId(), arrival, clock.instant());
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The one place where every request's outcome is known, after its answer went out: the
     * status ({@code reply.drop()} for a connection dropped on purpose), how long it took and the
     * route. Logs one DEBUG line.
     */
    private void requestDone(String method, String rawPath, Routed ctx, Reply reply, long elapsedNanos) {
        log.debug(
                "{} {} -> {} in {} ms{}",
                method,
                rawPath,
                reply.drop() ? "dropped" : reply.status(),
                elapsedNanos / 1_000_000,
                ctx != null && ctx.request().runId() != null
                        ? " run=" + ctx.request().runId()
                        : "");
    }

    private record Routed(Handler handler, RequestContext request) {}

    /**
     * Writes the request's audit row in a transaction of its own, unless it is not audited or the
     * endpoint already committed it. Best effort: a failure is logged, the answer stays as it is.
     * Runs with the thread's interrupt flag cleared, so a request interrupted by shutdown still
     * leaves its row when the database is still there.
     */
    private void auditUnlessWritten(RequestAudit audit, HttpExchange ex, String rawPath, Reply reply, ApiError error) {
        if (!audit.isOn() || audit.isWritten()) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            if (audit.authUser() == null) {
                audit.authUser(auth.tokenOwner(ex.getRequestHeaders().getFirst("Authorization"))
                        .orElse(null));
            }
            audits.insertAlone(audit.entry(
                    reply.drop() ? 0 : reply.status(), error == null ? null : error.code(), clock.millis()));
        } catch (Exception e) {
            log.warn(
                    "could not write the audit row of {} {} (answer {}): {}",
                    ex.getRequestMethod(),
                    rawPath,
                    reply.status(),
                    e.toString());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Routed routeOrFail(HttpExchange ex, String rawPath, Instant arrival, RequestAudit audit) throws Exception {
        if (closing) {
            throw new ApiError(503, "unavailable", "server is shutting down", 1);
        }
        String method = ex.getRequestMethod();
        if (rawPath.equals("/health") || rawPath.equals("/metrics")) {
            Map<String, Handler> methods = rawPath.equals("/health") ? health : scrape;
            Handler h = methods.get(method);
            if (h == null) {
                throw ApiError.methodNotAllowed(method, rawPath, methods.keySet());
            }
            return new Routed(
                    h,
                    new RequestContext(
                            ex, List.of(rawPath.substring(1)), null, null, null, arrival, RequestAudit.off(), null));
        }
        boolean userPath = rawPath.startsWith("/v1/users/");
        if (userPath) {
            stats.request();
        }
        List<String> s = PathSegments.of(rawPath);
        Map<String, Handler> methods = endpoint(s);
        Handler handler = methods.get(method);
        if (handler == null) {
            throw ApiError.methodNotAllowed(method, rawPath, new java.util.TreeSet<>(methods.keySet()));
        }
        String authorization = ex.getRequestHeaders().getFirst("Authorization");
        if (s.get(1).equals("sessions")) {
            // signing in needs no session; everything else there is the caller's own sessions
            Session session = s.size() == 2 && method.equals("POST") ? null : auth.requireSession(authorization);
            return new Routed(
                    handler, new RequestContext(ex, s, null, null, null, arrival, RequestAudit.off(), session));
        }
        if (!userPath) {
            Session session = auth.requireAdmin(authorization);
            return new Routed(
                    handler, new RequestContext(ex, s, null, null, null, arrival, RequestAudit.off(), session));
        }
        long latencyMs = faults.latency().toMillis();
        if (latencyMs > 0) {
            Thread.sleep(latencyMs);
        }
        if (faults.takeThrottle()) {
            throw throttled();
        }
        Session session = auth.requireUser(authorization, s.get(2));
        audit.authUser(s.get(2));
        String scope = Scopes.require(s.get(4));
        String runId = ProtocolHeaders.optionalToken(
                ProtocolHeaders.SYNC_RUN_ID, ex.getRequestHeaders().getFirst(ProtocolHeaders.SYNC_RUN_ID));
        return new Routed(handler, new RequestContext(ex, s, s.get(2), scope, runId, arrival, audit, session));
    }

    /**
     * The throttle fault's answer: 429 with {@code Retry-After} as delta-seconds or, when the switches
     * say so, as an IMF-fixdate (RFC 9110 §5.6.7) of the server's wall clock rounded up to the next
     * whole second plus the wait, so a client whose clock agrees waits at least the wait either way.
     */
    private ApiError throttled() {
        long seconds = faults.throttleRetryAfterSeconds();
        String value = Long.toString(seconds);
        if (faults.throttleRetryAfterDate()) {
            long ms = clock.millis();
            Instant at = Instant.ofEpochSecond(Math.floorDiv(ms + 999, 1000) + seconds);
            value = HTTP_DATE.format(at);
        }
        return ApiError.rateLimited(value, "too many requests; retry after " + seconds + " s");
    }

    private Map<String, Handler> endpoint(List<String> s) {
        if (s.size() >= 2 && s.get(0).equals("v1") && s.get(1).equals("users")) {
            if (s.size() >= 6
                    && s.get(3).equals("scopes")
                    && AccountStore.USER_NAME.matcher(s.get(2)).matches()) {
                if (s.size() == 6 && s.get(5).equals("changes")) {
                    return changes;
                }
                if (s.size() == 7 && s.get(5).equals("pushes")) {
                    return pushStatus;
                }
            }
        } else if (s.size() == 2 && s.get(0).equals("v1") && s.get(1).equals("sessions")) {
            return sessions;
        } else if (s.size() == 3 && s.get(0).equals("v1") && s.get(1).equals("sessions")) {
            return oneSession;
        } else if (s.size() == 3 && s.get(0).equals("v1") && s.get(1).equals("admin") && admin.containsKey(s.get(2))) {
            return admin.get(s.get(2));
        } else if (s.size() == 5
                && s.get(0).equals("v1")
                && s.get(1).equals("admin")
                && s.get(2).equals("jobs")
                && s.get(4).equals("run")) {
            return jobRun;
        }
        throw ApiError.notFound("no such endpoint");
    }

    private static Reply errorReply(ApiError e) {
        Reply r = Reply.json(e.status(), e.body());
        for (Map.Entry<String, String> h : e.headers().entrySet()) {
            r = r.withHeader(h.getKey(), h.getValue());
        }
        return r;
    }

    private static void send(HttpExchange ex, Reply r) throws IOException {
        if (r.drop()) {
            // No sendResponseHeaders: closing now closes the connection without any response.
            ex.close();
            return;
        }
        com.sun.net.httpserver.Headers h = ex.getResponseHeaders();
        h.set("Content-Type", JSON);
        r.headers().forEach(h::set);
        boolean head = "HEAD".equalsIgnoreCase(ex.getRequestMethod());
        byte[] body = r.body();
        ex.sendResponseHeaders(r.status(), head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        }
    }
}
