package org.leasesync.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/users/{user}/scopes/{scope}/changes} (docs/protocol.md §4, §6).
 *
 * <p>A pull with fencing headers runs as one transaction: lock the user+scope row (as pushes do),
 * check and record the fencing token (a stale one → 409, nothing returned), read the page, write
 * the audit row, commit. So a successor run's first pull raises the token before a stale run's
 * late push can pass, and the pull's audit row sits between the pushes it saw and those it did
 * not. A pull without fencing headers reads without a lock. Thread-safe; blocks on the database.
 */
final class PullHandler implements Handler {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    private static final Pattern CURSOR = Pattern.compile("([0-9a-f]{12}):(0|[1-9][0-9]{0,17})");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ServerDatabase db;
    private final RecordStore records;
    private final FencingStore fencing;
    private final Clock clock;

    PullHandler(ServerDatabase db, RecordStore records, FencingStore fencing, Clock clock) {
        this.db = db;
        this.records = records;
        this.fencing = fencing;
        this.clock = clock;
    }

    @Override
    public Reply handle(RequestContext ctx) throws Exception {
        Fencing fence = Fencing.fromHeaders(ctx);
        Map<String, String> query = query(ctx.rawQuery());
        String dbId = records.databaseId();
        long since = cursor(query.get("since"), dbId);
        int limit = limit(query.get("limit"));
        if (fence == null) {
            return Reply.json(200, body(records.changesSince(ctx.user(), ctx.scope(), since, limit), since, dbId));
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                records.lockScope(c, ctx.user(), ctx.scope());
                if (!fencing.accept(c, ctx.user(), ctx.scope(), fence.clientId(), fence.token(), clock.millis())) {
                    throw fence.stale("nothing returned");
                }
                ObjectNode body = body(records.changesSince(c, ctx.user(), ctx.scope(), since, limit), since, dbId);
                ctx.audit().writeIn(c, 200, clock.millis());
                c.commit();
                ctx.audit().committed();
                return Reply.json(200, body);
            } catch (SQLException | RuntimeException e) {
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
        }
    }

    private static ObjectNode body(RecordStore.Page page, long since, String dbId) {
        ArrayNode changes = NODES.arrayNode();
        long next = since;
        for (RecordStore.StoredRecord r : page.records()) {
            ObjectNode n = changes.addObject();
            n.put("id", r.id());
            n.put("version", r.version());
            n.put("deleted", r.deleted());
            n.set("payload", r.payloadJson() == null ? NODES.nullNode() : Json.readTree(r.payloadJson()));
            n.put("serverTime", Instant.ofEpochMilli(r.updatedAtMs()).toString());
            next = r.seq();
        }
        ObjectNode body = NODES.objectNode();
        body.set("changes", changes);
        body.put("nextCursor", dbId + ":" + next);
        body.put("hasMore", page.hasMore());
        return body;
    }

    private static long cursor(String since, String dbId) {
        if (since == null) {
            return 0;
        }
        java.util.regex.Matcher m = CURSOR.matcher(since);
        if (!m.matches()) {
            throw ApiError.badRequest("since '" + since + "' is not a cursor issued by this server");
        }
        if (!m.group(1).equals(dbId)) {
            throw ApiError.invalidCursor("cursor '" + since + "' was issued by another server database (this one is "
                    + dbId + "); pull again without 'since' to get everything");
        }
        return Long.parseLong(m.group(2));
    }

    private static int limit(String limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the 400 below
        }
        throw ApiError.badRequest("limit must be an integer 1.." + MAX_LIMIT + " but was '" + limit + "'");
    }

    static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            if (out.putIfAbsent(name, value) != null) {
                throw ApiError.badRequest("query parameter '" + name + "' given more than once");
            }
        }
        return out;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("malformed percent-encoding in query: '" + s + "'");
        }
    }
}
