package org.leasesync.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.leasesync.server.jobs.TombstoneHorizons;
import org.leasesync.server.protocol.ApiError;
import org.leasesync.server.protocol.Cursor;
import org.leasesync.server.protocol.Json;
import org.leasesync.server.protocol.PayloadCheck;
import org.leasesync.server.protocol.PushOutcome;
import org.leasesync.server.protocol.PushRequest;
import org.leasesync.server.store.DatabaseErrors;
import org.leasesync.server.store.FencingStore;
import org.leasesync.server.store.IdempotencyStore;
import org.leasesync.server.store.RecordStore;
import org.leasesync.server.store.RequestAudit;
import org.leasesync.server.store.ScopeHistory;
import org.leasesync.server.store.ServerDatabase;

/**
 * Executes one push as a single database transaction (docs/protocol.md §5.1, §6):
 * <ol>
 *   <li>lock the user+scope row (serialises pushes there, on every instance sharing the database;
 *       the pull cursor grows in commit order);</li>
 *   <li>look the idempotency key up again: if a push with it completed meanwhile (possible only
 *       when its claim was judged stale while its instance still worked on it), apply nothing and
 *       hand the stored push back, to be replayed;</li>
 *   <li>check and record the fencing token, if any; a stale one rolls everything back;</li>
 *   <li>read the push's known change ids and its records (one prepared statement each); then for
 *       each change in order, against the state the push's earlier changes left: a known change id
 *       is a duplicate; a matching base version is applied (version + 1, next seq; a record created
 *       anew where tombstones were purged gets a version above every purged one,
 *       {@link TombstoneHorizons}); anything else is a conflict;</li>
 *   <li>write each record's last state and the new change ids as JDBC batches (inserts, updates,
 *       change ids);</li>
 *   <li>if it applied a change: record the write in the user+scope's history with a new stamp
 *       ({@link ScopeHistory}) and answer its position (the last seq it assigned, with that stamp),
 *       which the client sends back with its pulls so that a restore to before this push is noticed;</li>
 *   <li>store the response under the idempotency key;</li>
 *   <li>write the request's audit row, if audited (so the row commits exactly when the push does,
 *       and audit seq order is commit order per user+scope);</li>
 *   <li>commit.</li>
 * </ol>
 * Thread-safe; blocks on the database (and on the scope lock while another push holds it).
 */
public final class PushService {

    /**
     * What {@link #execute} did: committed this push ({@code responseJson} and {@code outcome}), or
     * found the key already completed ({@code stored}) and applied nothing.
     */
    record Executed(String responseJson, PushOutcome outcome, IdempotencyStore.StoredPush stored) {

        /** True if the key was already completed and nothing was applied. */
        boolean alreadyCompleted() {
            return stored != null;
        }
    }

    /**
     * The commit of a push failed in a way that leaves its outcome unknown (the connection broke
     * while committing): it may or may not have been applied. The client must ask about its key.
     */
    static final class CommitOutcomeUnknown extends java.sql.SQLTransientConnectionException {
        private static final long serialVersionUID = 1L;

        CommitOutcomeUnknown(SQLException cause) {
            super(
                    "the database connection broke while committing the push: it may or may not have been applied",
                    cause.getSQLState(),
                    cause);
        }
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ServerDatabase db;
    private final RecordStore records;
    private final FencingStore fencing;
    private final IdempotencyStore keys;
    private final Clock clock;

    public PushService(
            ServerDatabase db, RecordStore records, FencingStore fencing, IdempotencyStore keys, Clock clock) {
        this.db = db;
        this.records = records;
        this.fencing = fencing;
        this.keys = keys;
        this.clock = clock;
    }

    /**
     * Applies the push, stores its response under {@code key} and writes its audit row (status
     * 200), atomically; marks the audit {@linkplain RequestAudit#committed() committed}. If the
     * key's push completed meanwhile, commits nothing and returns it ({@link Executed#stored()}).
     *
     * @param fence the push's fencing headers, or null for none
     * @throws ApiError 409 {@code stale_fencing_token}; nothing applied, stored or audited
     * @throws CommitOutcomeUnknown if the commit itself failed on a broken connection; the audit is
     *     marked {@linkplain RequestAudit#outcomeUnknown() unknown}
     * @throws SQLException on any other database failure; nothing applied, stored or audited
     */
    public Executed execute(
            String user,
            String scope,
            String key,
            String requestHash,
            PushRequest request,
            Fencing fence,
            RequestAudit audit)
            throws SQLException {
        try (Connection c = db.connection()) {
            c.setAutoCommit(false);
            Executed done;
            try {
                done = executeIn(c, user, scope, key, requestHash, request, fence);
                if (done.alreadyCompleted()) {
                    c.rollback();
                    return done;
                }
                audit.outcome(done.outcome());
                audit.writeIn(c, 200, clock.millis());
            } catch (SQLException | RuntimeException e) {
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
            try {
                c.commit();
            } catch (SQLException e) {
                if (DatabaseErrors.isConnectionLost(e)) {
                    audit.outcomeUnknown();
                    throw new CommitOutcomeUnknown(e);
                }
                DatabaseErrors.rollbackAfter(c, e);
                throw e;
            }
            audit.committed();
            return done;
        }
    }

    private Executed executeIn(
            Connection c, String user, String scope, String key, String requestHash, PushRequest request, Fencing fence)
            throws SQLException {
        long now = clock.millis();
        long seq = records.lockScope(c, user, scope);
        Optional<IdempotencyStore.StoredPush> completed = keys.find(c, user, key, now);
        if (completed.isPresent()) {
            return new Executed(null, PushOutcome.NONE, completed.get());
        }
        if (fence != null && !fencing.accept(c, user, scope, fence.clientId(), fence.token(), now)) {
            throw fence.stale("nothing applied", fencing.highest(c, user, scope, fence.clientId()));
        }
        ArrayNode results = NODES.arrayNode();
        List<String> applied = new ArrayList<>();
        List<String> duplicates = new ArrayList<>();
        List<String> conflicts = new ArrayList<>();
        // Read once: the change ids already applied, and the records the push names. Decided in order
        // against the state this push leaves (a change id or record written earlier in the same push).
        Map<String, RecordStore.AppliedChange> appliedIds = records.findAllApplied(
                c,
                user,
                scope,
                request.changes().stream().map(PushRequest.Change::changeId).toList());
        Map<String, RecordStore.StoredRecord> stored = records.findAll(
                c,
                user,
                scope,
                request.changes().stream().map(PushRequest.Change::id).toList());
        Map<String, RecordStore.StoredRecord> written = new LinkedHashMap<>();
        List<RecordStore.AppliedChange> newIds = new ArrayList<>();
        Long versionFloor = null;
        for (PushRequest.Change ch : request.changes()) {
            RecordStore.AppliedChange earlier = appliedIds.get(ch.changeId());
            if (earlier != null) {
                results.add(applied(ch.changeId(), earlier.recordId(), earlier.version(), true));
                duplicates.add(ch.changeId());
                continue;
            }
            Optional<RecordStore.StoredRecord> current =
                    Optional.ofNullable(written.get(ch.id())).or(() -> Optional.ofNullable(stored.get(ch.id())));
            long serverVersion = current.map(RecordStore.StoredRecord::version).orElse(0L);
            if (serverVersion != ch.baseVersion()) {
                results.add(conflict(ch, current));
                conflicts.add(ch.changeId());
                continue;
            }
            seq++;
            long version = ch.baseVersion() + 1;
            if (current.isEmpty()) {
                // A client may still hold a purged tombstone of this id: the new record must look newer to it.
                if (versionFloor == null) {
                    versionFloor = TombstoneHorizons.read(c, user, scope).versionFloor();
                }
                version = Math.max(version, versionFloor + 1);
            }
            String payload = ch.deleted() ? null : Json.text(ch.payload());
            written.put(ch.id(), new RecordStore.StoredRecord(ch.id(), version, ch.deleted(), payload, seq, now));
            RecordStore.AppliedChange a = new RecordStore.AppliedChange(ch.changeId(), ch.id(), version);
            appliedIds.put(ch.changeId(), a);
            newIds.add(a);
            applied.add(ch.changeId());
            results.add(applied(ch.changeId(), ch.id(), version, false));
        }
        // Each record's last state of this push, as one batch of inserts and one of updates.
        List<RecordStore.StoredRecord> inserts = new ArrayList<>();
        List<RecordStore.StoredRecord> updates = new ArrayList<>();
        for (RecordStore.StoredRecord r : written.values()) {
            (stored.containsKey(r.id()) ? updates : inserts).add(r);
        }
        records.writeAll(c, user, scope, inserts, updates);
        records.insertAllApplied(c, user, scope, newIds, now);
        records.setLastSeq(c, user, scope, seq);
        ObjectNode body = NODES.objectNode();
        body.set("results", results);
        if (!applied.isEmpty()) {
            String stamp = ScopeHistory.newStamp();
            ScopeHistory.record(c, user, scope, seq, stamp);
            body.put("position", new Cursor(records.databaseId(), seq, 0, stamp).text());
        }
        String json = Json.text(body);
        keys.store(c, user, new IdempotencyStore.StoredPush(key, scope, requestHash, 200, json, now));
        return new Executed(json, new PushOutcome(applied, duplicates, conflicts), null);
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
        PayloadCheck.Stored checked = PayloadCheck.stored(ch.id(), payload);
        // A server version stored beyond the record limits is not carried: the conflict still stands.
        r.set("serverPayload", checked.payload() == null ? NODES.nullNode() : checked.payload());
        checked.withheld().ifPresent(why -> r.put("serverPayloadWithheld", why));
        return r;
    }
}
