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
import org.leasesync.server.jobs.TombstoneHorizons;

/**
 * {@code GET /v1/users/{user}/scopes/{scope}/changes} (docs/protocol.md §4, §6).
 *
 * <p>A pull with fencing headers runs as one transaction: lock the user+scope row (as pushes do),
 * check and record the fencing token (a stale one → 409, nothing returned), read the page, write
 * the audit row, commit. So a successor run's first pull raises the token before a stale run's
 * late push can pass, and the pull's audit row sits between the pushes it saw and those it did
 * not. A pull without fencing headers reads without a lock, then the user+scope's tombstone horizon.
 *
 * <p>Tombstones purged by the job {@code purge-tombstones} leave a horizon per user+scope
 * ({@link TombstoneHorizons}): a cursor below it that was issued before the purge may have missed a
 * deletion, so the pull is answered {@code 400 invalid_cursor} and the client pulls everything
 * again. Cursors name the purge generation they were issued at, so such a fresh full pull is not
 * refused on its next page. An unfenced pull checks the horizon read after its page, so a purge
 * that commits in between makes the pull refused rather than missing. Thread-safe; blocks on the
 * database.
 */
final class PullHandler implements Handler {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    /** {@code DATABASE_ID:SEQ}, or {@code DATABASE_ID:SEQ:GENERATION} after tombstones were purged. */
    private static final Pattern CURSOR = Pattern.compile("([0-9a-f]{12}):(0|[1-9][0-9]{0,17})(?::([1-9][0-9]{0,17}))?");
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
        Cursor since = cursor(query.get("since"), dbId);
        int limit = limit(query.get("limit"));
        if (fence == null) {
            RecordStore.Page page = records.changesSince(ctx.user(), ctx.scope(), since.seq(), limit);
            TombstoneHorizons.Horizon horizon;
            try (Connection c = db.connection()) {
                horizon = TombstoneHorizons.read(c, ctx.user(), ctx.scope());
            }
            checkHorizon(query.get("since"), since, horizon);
            return Reply.json(200, body(page, since.seq(), dbId, horizon.generation()));
        }
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                records.lockScope(c, ctx.user(), ctx.scope());
                if (!fencing.accept(c, ctx.user(), ctx.scope(), fence.clientId(), fence.token(), clock.millis())) {
                    throw fence.stale("nothing returned");
                }
                TombstoneHorizons.Horizon horizon = TombstoneHorizons.read(c, ctx.user(), ctx.scope());
                checkHorizon(query.get("since"), since, horizon);
                ObjectNode body = body(records.changesSince(c, ctx.user(), ctx.scope(), since.seq(), limit), since.seq(),
                        dbId, horizon.generation());
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

    /** A parsed cursor: its seq and the purge generation it was issued at (0 = before any purge). */
    private record Cursor(long seq, long generation, boolean given) {
    }

    /** A cursor issued before a purge and below its horizon may have missed a deletion. */
    private static void checkHorizon(String text, Cursor since, TombstoneHorizons.Horizon horizon) {
        if (since.given() && !horizon.accepts(since.seq(), since.generation())) {
            throw ApiError.invalidCursor("cursor '" + text + "' is older than deletions this server no longer keeps"
                    + " (tombstones up to " + horizon.seq() + " were purged); pull again without 'since' to get everything");
        }
    }

    private static ObjectNode body(RecordStore.Page page, long since, String dbId, long generation) {
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
        body.put("nextCursor", dbId + ":" + next + (generation > 0 ? ":" + generation : ""));
        body.put("hasMore", page.hasMore());
        return body;
    }

    private static Cursor cursor(String since, String dbId) {
        if (since == null) {
            return new Cursor(0, 0, false);
        }
        java.util.regex.Matcher m = CURSOR.matcher(since);
        if (!m.matches()) {
            throw ApiError.badRequest("since '" + since + "' is not a cursor issued by this server");
        }
        if (!m.group(1).equals(dbId)) {
            throw ApiError.invalidCursor("cursor '" + since + "' was issued by another server database (this one is "
                    + dbId + "); pull again without 'since' to get everything");
        }
        return new Cursor(Long.parseLong(m.group(2)), m.group(3) == null ? 0 : Long.parseLong(m.group(3)), true);
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
