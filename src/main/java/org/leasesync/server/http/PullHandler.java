package org.leasesync.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.leasesync.protocol.RecordLimits;
import org.leasesync.server.jobs.TombstoneHorizons;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.Cursor;
import org.leasesync.server.protocol.PayloadCheck;
import org.leasesync.server.store.DatabaseErrors;
import org.leasesync.server.store.FencingStore;
import org.leasesync.server.store.RecordStore;
import org.leasesync.server.store.ScopeHistory;
import org.leasesync.server.store.ServerDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/users/{user}/scopes/{scope}/changes} (docs/protocol.md §4, §6).
 *
 * <p>A pull with fencing headers runs as one transaction: lock the user+scope row (as pushes do),
 * check and record the fencing token (a stale one → 409, nothing returned), check the cursor, read
 * the page, write the audit row, commit. So a successor run's first pull raises the token before a
 * stale run's late push can pass, and the pull's audit row sits between the pushes it saw and those
 * it did not. A pull without fencing headers reads on one connection without a lock.
 *
 * <p>Checks of the cursor ({@code since}) and of the optional push position ({@code pushed}), each a
 * {@code 400 invalid_cursor} with a {@code reason} that makes the client pull everything again:
 * <ul>
 *   <li>{@code other_database}: issued by another server database;</li>
 *   <li>{@code went_back}: not on this database's history ({@link ScopeHistory}) — the data went back
 *       to an earlier state, as after a restore from an older backup;</li>
 *   <li>{@code purged} (cursor only): tombstones purged by the job {@code purge-tombstones} leave a
 *       horizon per user+scope ({@link TombstoneHorizons}); a cursor below it that was issued before
 *       the purge may have missed a deletion. Cursors name the purge generation they were issued at,
 *       so a fresh full pull is not refused on its next page. The horizon is read after the page, so
 *       a purge that commits in between makes the pull refused rather than missing.</li>
 * </ul>
 * Thread-safe; blocks on the database.
 */
public final class PullHandler implements Handler {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Logger log = LoggerFactory.getLogger(PullHandler.class);

    private final ServerDatabase db;
    private final RecordStore records;
    private final FencingStore fencing;
    private final Clock clock;

    public PullHandler(ServerDatabase db, RecordStore records, FencingStore fencing, Clock clock) {
        this.db = db;
        this.records = records;
        this.fencing = fencing;
        this.clock = clock;
    }

    /** What a pull asks for: after which position, checking which push position, how many. */
    private record Ask(String user, String scope, Optional<Cursor> since, Optional<Cursor> pushed, int limit) {}

    @Override
    public Reply handle(RequestContext ctx) throws Exception {
        Fencing fence = Fencing.fromHeaders(ctx);
        Map<String, String> query = query(ctx.rawQuery());
        String dbId = records.databaseId();
        Ask ask = new Ask(
                ctx.user(),
                ctx.scope(),
                ours(query.get("since"), "cursor", dbId),
                ours(query.get("pushed"), "push position", dbId),
                limit(query.get("limit")));
        try (Connection c = db.connection()) {
            if (fence == null) {
                return Reply.json(200, read(c, ask, records.lastSeq(c, ask.user(), ask.scope()), dbId));
            }
            c.setAutoCommit(false);
            try {
                long lastSeq = records.lockScope(c, ask.user(), ask.scope());
                if (!fencing.accept(c, ask.user(), ask.scope(), fence.clientId(), fence.token(), clock.millis())) {
                    throw fence.stale(
                            "nothing returned", fencing.highest(c, ask.user(), ask.scope(), fence.clientId()));
                }
                ObjectNode body = read(c, ask, lastSeq, dbId);
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

    /** Checks the positions against the history, reads the page, then checks the horizon. */
    private ObjectNode read(Connection c, Ask ask, long lastSeq, String dbId) throws SQLException {
        onHistory(c, ask, ask.since(), "cursor", lastSeq);
        onHistory(c, ask, ask.pushed(), "push position", lastSeq);
        long since = ask.since().map(Cursor::seq).orElse(0L);
        RecordStore.Page page = records.changesSince(c, ask.user(), ask.scope(), since, ask.limit());
        TombstoneHorizons.Horizon horizon = TombstoneHorizons.read(c, ask.user(), ask.scope());
        if (ask.since().isPresent() && !horizon.accepts(since, ask.since().get().generation())) {
            throw ApiError.invalidCursor(
                    ApiError.PURGED,
                    "cursor '" + ask.since().get() + "' is older than deletions"
                            + " this server no longer keeps (tombstones up to " + horizon.seq()
                            + " were purged); pull again"
                            + " without 'since' to get everything");
        }
        return body(ask, page, next(c, ask, page, dbId).withGeneration(horizon.generation()));
    }

    private static void onHistory(Connection c, Ask ask, Optional<Cursor> position, String what, long lastSeq)
            throws SQLException {
        if (position.isEmpty()) {
            return;
        }
        Optional<String> why = ScopeHistory.notOnHistory(c, ask.user(), ask.scope(), position.get(), lastSeq);
        if (why.isPresent()) {
            throw ApiError.invalidCursor(
                    ApiError.WENT_BACK,
                    "this server's data went back to an earlier state"
                            + " (restored from an older backup?): " + what + " '" + position.get()
                            + "' is not on its history ("
                            + why.get() + "); pull again without 'since' to get everything");
        }
    }

    /** Where the next pull starts: after the page's last record, or where this one started. */
    private Cursor next(Connection c, Ask ask, RecordStore.Page page, String dbId) throws SQLException {
        if (!page.records().isEmpty()) {
            long seq = page.records().get(page.records().size() - 1).seq();
            return new Cursor(
                    dbId,
                    seq,
                    0,
                    ScopeHistory.stampAt(c, ask.user(), ask.scope(), seq).orElse(null));
        }
        Cursor from = ask.since().orElse(new Cursor(dbId, 0, 0, null));
        if (from.seq() > 0 && from.stamp() == null) { // a cursor from before stamps: give it its stamp
            return new Cursor(
                    dbId,
                    from.seq(),
                    0,
                    ScopeHistory.stampAt(c, ask.user(), ask.scope(), from.seq()).orElse(null));
        }
        return from;
    }

    private static ObjectNode body(Ask ask, RecordStore.Page page, Cursor next) {
        ArrayNode changes = NODES.arrayNode();
        ArrayNode withheld = NODES.arrayNode();
        for (RecordStore.StoredRecord r : page.records()) {
            PayloadCheck.Stored checked = PayloadCheck.stored(r.id(), r.payloadJson());
            if (checked.withheld().isPresent()) {
                // Stored beyond the record limits (by an older version): the client could not take it,
                // and the rest of the page must still reach it. The cursor moves past it.
                log.warn(
                        "pull {}|{}: record '{}' version {} withheld: {}",
                        ask.user(),
                        ask.scope(),
                        RecordLimits.shown(r.id()),
                        r.version(),
                        checked.withheld().get());
                ObjectNode w = withheld.addObject();
                w.put("id", RecordLimits.shown(r.id()));
                w.put("version", r.version());
                w.put("reason", checked.withheld().get());
                continue;
            }
            ObjectNode n = changes.addObject();
            n.put("id", r.id());
            n.put("version", r.version());
            n.put("deleted", r.deleted());
            n.set("payload", checked.payload() == null ? NODES.nullNode() : checked.payload());
            n.put("serverTime", Instant.ofEpochMilli(r.updatedAtMs()).toString());
        }
        ObjectNode body = NODES.objectNode();
        body.set("changes", changes);
        if (!withheld.isEmpty()) {
            body.set("withheld", withheld);
        }
        body.put("nextCursor", next.text());
        body.put("hasMore", page.hasMore());
        return body;
    }

    /** The parsed position, refused if another database issued it. */
    private static Optional<Cursor> ours(String text, String what, String dbId) {
        if (text == null) {
            return Optional.empty();
        }
        Cursor cursor = Cursor.parse(text, what.equals("cursor") ? "since" : "pushed");
        if (!cursor.databaseId().equals(dbId)) {
            throw ApiError.invalidCursor(
                    ApiError.OTHER_DATABASE,
                    what + " '" + text + "' was issued by another server" + " database (this one is " + dbId
                            + "); pull again without 'since' to get everything");
        }
        return Optional.of(cursor);
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
