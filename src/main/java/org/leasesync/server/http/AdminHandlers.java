package org.leasesync.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.server.faults.FaultSwitches;
import org.leasesync.server.jobs.JobScheduler;
import org.leasesync.server.jobs.JobViews;
import org.leasesync.server.jobs.RunRequest;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.PushRequest;
import org.leasesync.server.store.AuditEntry;
import org.leasesync.server.store.AuditLog;
import org.leasesync.server.store.StatsStore;

/** The admin endpoints (docs/protocol.md §8). Thread-safe; stats and audit block on the database. */
public final class AdminHandlers {

    private static final Set<String> FAULT_FIELDS = Set.of(
            "latencyMs",
            "failPush",
            "dropAfterApply",
            "delayAfterApplyMs",
            "throttle",
            "throttleRetryAfterSeconds",
            "throttleRetryAfterDate");
    static final int AUDIT_DEFAULT_LIMIT = 1000;
    static final int AUDIT_MAX_LIMIT = 10_000;
    static final int JOB_RUNS_DEFAULT = 10;
    static final int JOB_RUNS_MAX = 100;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final StatsStore stats;
    private final FaultSwitches faults;
    private final AuditLog audits;
    private final JobScheduler jobs;

    public AdminHandlers(StatsStore stats, FaultSwitches faults, AuditLog audits, JobScheduler jobs) {
        this.stats = stats;
        this.faults = faults;
        this.audits = audits;
        this.jobs = jobs;
    }

    /** Cluster-wide figures, read from the database. */
    Reply stats(RequestContext ctx) throws java.sql.SQLException {
        return Reply.json(200, stats.snapshot());
    }

    /** Zeroes the cluster-wide figures (every instance sharing the database reports zero after it). */
    Reply resetStats(RequestContext ctx) throws java.sql.SQLException {
        stats.reset();
        return Reply.json(200, stats.snapshot());
    }

    Reply getFaults(RequestContext ctx) {
        return Reply.json(200, faults.snapshot());
    }

    Reply putFaults(RequestContext ctx) throws Exception {
        JsonNode body = PushRequest.parseJson(ctx.readBody());
        if (!body.isObject()) {
            throw ApiError.badRequest("fault settings must be a JSON object");
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!FAULT_FIELDS.contains(name)) {
                throw ApiError.badRequest("unknown fault setting '" + name + "'; known: " + FAULT_FIELDS);
            }
        }
        FaultSettings now = faults.snapshot();
        FaultSettings next;
        try {
            next = new FaultSettings(
                    number(body, "latencyMs", now.latencyMs()),
                    (int) number(body, "failPush", now.failPush()),
                    (int) number(body, "dropAfterApply", now.dropAfterApply()),
                    number(body, "delayAfterApplyMs", now.delayAfterApplyMs()),
                    (int) number(body, "throttle", now.throttle()),
                    number(body, "throttleRetryAfterSeconds", now.throttleRetryAfterSeconds()),
                    flag(body, "throttleRetryAfterDate", now.throttleRetryAfterDate()));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(e.getMessage());
        }
        faults.set(next);
        return Reply.json(200, faults.snapshot());
    }

    /**
     * {@code GET /v1/admin/audit?after={seq}&limit={n}}: audit rows with seq greater than
     * {@code after} (default 0), at most {@code limit} (default 1000, 1..10000), in seq order.
     *
     * @throws ApiError 404 {@code audit_off} when the server runs without the audit log; 400 for a
     *     bad parameter
     */
    Reply audit(RequestContext ctx) throws Exception {
        if (!audits.enabled()) {
            throw new ApiError(
                    404,
                    "audit_off",
                    "the audit log is off; start the server with --audit (ServerConfig.withAudit(true))");
        }
        Map<String, String> query = PullHandler.query(ctx.rawQuery());
        long after = queryLong(query, "after", 0, 0, Long.MAX_VALUE);
        int limit = (int) queryLong(query, "limit", AUDIT_DEFAULT_LIMIT, 1, AUDIT_MAX_LIMIT);
        AuditLog.Page page = audits.read(after, limit);
        ObjectNode body = NODES.objectNode();
        ArrayNode entries = body.putArray("entries");
        for (AuditLog.Stored s : page.entries()) {
            AuditEntry e = s.entry();
            ObjectNode n = entries.addObject();
            n.put("seq", s.seq());
            n.put("atMs", e.atMs());
            n.put("pathUser", e.pathUser());
            n.put("authUser", e.authUser());
            n.put("scope", e.scope());
            n.put("op", e.op());
            n.put("clientId", e.clientId());
            n.put("fencingToken", e.fencingToken());
            n.put("idempotencyKey", e.idempotencyKey());
            n.put("status", e.status());
            n.put("code", e.code());
            ids(n.putArray("applied"), e.applied());
            ids(n.putArray("duplicates"), e.duplicates());
            ids(n.putArray("conflicts"), e.conflicts());
        }
        body.put("hasMore", page.hasMore());
        return Reply.json(200, body);
    }

    /**
     * {@code GET /v1/admin/jobs?runs={n}}: every job's schedule, lease holder, unfinished run and
     * last {@code n} runs (default 10, 1..100).
     */
    Reply jobs(RequestContext ctx) {
        int runs = (int) queryLong(PullHandler.query(ctx.rawQuery()), "runs", JOB_RUNS_DEFAULT, 1, JOB_RUNS_MAX);
        return Reply.json(200, jobs.status(runs));
    }

    /**
     * {@code POST /v1/admin/jobs/{name}/run}: {@code 202} with the started run, or {@code 200} when
     * the job is running already (here or on another instance) and the request joined it.
     *
     * @throws ApiError 404 {@code unknown_job}; 503 while the server stops
     */
    Reply runJob(RequestContext ctx) {
        String name = ctx.segments().get(3);
        RunRequest answer;
        try {
            answer = jobs.requestRun(name);
        } catch (IllegalArgumentException e) {
            throw new ApiError(404, "unknown_job", e.getMessage());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new ApiError(503, "unavailable", e.getMessage(), 1);
        }
        return Reply.json(answer instanceof RunRequest.Started ? 202 : 200, JobViews.runRequest(answer));
    }

    private static void ids(ArrayNode into, List<String> ids) {
        ids.forEach(into::add);
    }

    private static long queryLong(Map<String, String> query, String name, long absent, long min, long max) {
        String v = query.get(name);
        if (v == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the 400 below
        }
        String range = max == Long.MAX_VALUE ? ">= " + min : min + ".." + max;
        throw ApiError.badRequest(name + " must be an integer " + range + " but was '" + v + "'");
    }

    private static long number(JsonNode body, String name, long current) {
        JsonNode n = body.get(name);
        if (n == null) {
            return current;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw ApiError.badRequest(name + " must be an integer but was " + n);
        }
        return n.asLong();
    }

    private static boolean flag(JsonNode body, String name, boolean current) {
        JsonNode n = body.get(name);
        if (n == null) {
            return current;
        }
        if (!n.isBoolean()) {
            throw ApiError.badRequest(name + " must be true or false but was " + n);
        }
        return n.asBoolean();
    }
}
