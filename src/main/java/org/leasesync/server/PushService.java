package org.leasesync.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Executes one push as a single database transaction (docs/protocol.md §5.1, §6):
 * <ol>
 *   <li>lock the user+scope row (serialises pushes there; the pull cursor grows in commit order);</li>
 *   <li>check and record the fencing token, if any; a stale one rolls everything back;</li>
 *   <li>for each change in order: a known change id is a duplicate; a matching base version is
 *       applied (version + 1, next seq); anything else is a conflict;</li>
 *   <li>store the response under the idempotency key;</li>
 *   <li>write the request's audit row, if audited (so the row commits exactly when the push does,
 *       and audit seq order is commit order per user+scope);</li>
 *   <li>commit.</li>
 * </ol>
 * Thread-safe; blocks on the database (and on the scope lock while another push holds it).
 */
final class PushService {

    /** A committed push: the stored response text and what it did by change id. */
    record Executed(String responseJson, PushOutcome outcome) {
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ServerDatabase db;
    private final RecordStore records;
    private final FencingStore fencing;
    private final IdempotencyStore keys;
    private final Clock clock;

    PushService(ServerDatabase db, RecordStore records, FencingStore fencing, IdempotencyStore keys, Clock clock) {
        this.db = db;
        this.records = records;
        this.fencing = fencing;
        this.keys = keys;
        this.clock = clock;
    }

    /**
     * Applies the push, stores its response under {@code key} and writes its audit row (status
     * 200), atomically; marks the audit {@linkplain RequestAudit#committed() committed}.
     *
     * @param fence the push's fencing headers, or null for none
     * @throws ApiError 409 {@code stale_fencing_token}; nothing applied, stored or audited
     * @throws SQLException on database failure; nothing applied, stored or audited
     */
    Executed execute(String user, String scope, String key, String requestHash, PushRequest request,
                     Fencing fence, RequestAudit audit) throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            try {
                Executed done = executeIn(c, user, scope, key, requestHash, request, fence);
                audit.outcome(done.outcome());
                audit.writeIn(c, 200, clock.millis());
                c.commit();
                audit.committed();
                return done;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private Executed executeIn(Connection c, String user, String scope, String key, String requestHash,
                               PushRequest request, Fencing fence) throws SQLException {
        long now = clock.millis();
        long seq = records.lockScope(c, user, scope);
        if (fence != null && !fencing.accept(c, user, scope, fence.clientId(), fence.token(), now)) {
            throw fence.stale("nothing applied");
        }
        ArrayNode results = NODES.arrayNode();
        List<String> applied = new ArrayList<>();
        List<String> duplicates = new ArrayList<>();
        List<String> conflicts = new ArrayList<>();
        for (PushRequest.Change ch : request.changes()) {
            Optional<RecordStore.AppliedChange> earlier = records.findApplied(c, user, scope, ch.changeId());
            if (earlier.isPresent()) {
                results.add(applied(ch.changeId(), earlier.get().recordId(), earlier.get().version(), true));
                duplicates.add(ch.changeId());
                continue;
            }
            Optional<RecordStore.StoredRecord> current = records.find(c, user, scope, ch.id());
            long serverVersion = current.map(RecordStore.StoredRecord::version).orElse(0L);
            if (serverVersion != ch.baseVersion()) {
                results.add(conflict(ch, current));
                conflicts.add(ch.changeId());
                continue;
            }
            seq++;
            long version = ch.baseVersion() + 1;
            String payload = ch.deleted() ? null : Json.text(ch.payload());
            records.write(c, user, scope,
                    new RecordStore.StoredRecord(ch.id(), version, ch.deleted(), payload, seq, now),
                    current.isPresent());
            records.insertApplied(c, user, scope, new RecordStore.AppliedChange(ch.changeId(), ch.id(), version), now);
            applied.add(ch.changeId());
            results.add(applied(ch.changeId(), ch.id(), version, false));
        }
        records.setLastSeq(c, user, scope, seq);
        ObjectNode body = NODES.objectNode();
        body.set("results", results);
        String json = Json.text(body);
        keys.store(c, user, new IdempotencyStore.StoredPush(key, scope, requestHash, 200, json, now));
        return new Executed(json, new PushOutcome(applied, duplicates, conflicts));
    }

    private static ObjectNode applied(String changeId, String id, long version, boolean duplicate) {
        ObjectNode r = NODES.objectNode();
        r.put("changeId", changeId);
        r.put("id", id);
        r.put("status", "applied");
        r.put("version", version);
        r.put("duplicate", duplicate);
        return r;
    }

    private static ObjectNode conflict(PushRequest.Change ch, Optional<RecordStore.StoredRecord> current) {
        ObjectNode r = NODES.objectNode();
        r.put("changeId", ch.changeId());
        r.put("id", ch.id());
        r.put("status", "conflict");
        r.put("serverVersion", current.map(RecordStore.StoredRecord::version).orElse(0L));
        r.put("serverDeleted", current.map(RecordStore.StoredRecord::deleted).orElse(false));
        String payload = current.map(RecordStore.StoredRecord::payloadJson).orElse(null);
        r.set("serverPayload", payload == null ? NODES.nullNode() : Json.readTree(payload));
        return r;
    }
}
