package org.leasesync.server.demo;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import com.fasterxml.jackson.databind.JsonNode;
import org.leasesync.server.protocol.Json;
import org.leasesync.server.store.DatabaseErrors;
import org.leasesync.server.store.RecordStore;
import org.leasesync.server.store.ScopeHistory;
import org.leasesync.server.store.ServerDatabase;
import org.leasesync.server.store.TokenStore;

/**
 * Seeds users {@code alice} and {@code bob} with demo records. A user that already exists is left
 * alone, so seeding a file-backed database again changes nothing. Each user is seeded in one
 * transaction; when several instances start at once on an empty shared database, one of them
 * seeds each user and the others find a duplicate key and leave it. Not thread-safe; called once
 * at start.
 */
public final class DemoSeeder {

    /** The seeded users, in order. */
    public static final List<String> USERS = List.of("alice", "bob");

    private final ServerDatabase db;
    private final TokenStore tokens;
    private final RecordStore records;
    private final Clock clock;

    public DemoSeeder(ServerDatabase db, TokenStore tokens, RecordStore records, Clock clock) {
        this.db = db;
        this.tokens = tokens;
        this.records = records;
        this.clock = clock;
    }

    public void seed() throws SQLException {
        for (String user : USERS) {
            try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                try {
                    if (!TokenStore.exists(c, user)) {
                        tokens.createUser(c, user);
                        Map<String, List<String>> data = user.equals("alice") ? DemoData.ALICE : DemoData.BOB;
                        for (Map.Entry<String, List<String>> scope : data.entrySet()) {
                            insert(c, user, scope.getKey(), scope.getValue());
                        }
                    }
                    c.commit();
                } catch (SQLException e) {
                    DatabaseErrors.rollbackAfter(c, e);
                    // another instance on the same database seeded this user at the same moment
                    if (!DatabaseErrors.isUniqueViolation(e)) {
                        throw e;
                    }
                } catch (RuntimeException e) {
                    DatabaseErrors.rollbackAfter(c, e);
                    throw e;
                }
            }
        }
    }

    private void insert(Connection c, String user, String scope, List<String> payloads) throws SQLException {
        long seq = records.lockScope(c, user, scope);
        long now = clock.millis();
        Function<Integer, String> idOf = i -> payloads.size() == 1
                ? DemoData.ID_PREFIX.get(scope) : DemoData.ID_PREFIX.get(scope) + "-" + (i + 1);
        for (int i = 0; i < payloads.size(); i++) {
            JsonNode payload = Json.readTree(payloads.get(i));
            seq++;
            records.write(c, user, scope,
                    new RecordStore.StoredRecord(idOf.apply(i), 1, false, Json.text(payload), seq, now), false);
        }
        records.setLastSeq(c, user, scope, seq);
        if (!payloads.isEmpty()) {
            ScopeHistory.record(c, user, scope, seq, ScopeHistory.newStamp());
        }
    }
}
