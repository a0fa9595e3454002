package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.TestClient;
import org.leasesync.server.http.Fencing;
import org.leasesync.server.http.PushService;
import org.leasesync.server.protocol.PushRequest;

/**
 * A push's audit row commits with its effects or not at all (real H2): the property that lets a
 * checker trust the log after the server was killed at any moment.
 */
class AuditAtomicityTest {

    private ServerDatabase db;
    private RecordStore records;
    private IdempotencyStore keys;
    private AuditLog audits;
    private PushService service;

    @BeforeEach
    void open() throws SQLException {
        db = ServerDatabase.open(null);
        new AccountStore(db, Clock.systemUTC()).ensure("alice", false);
        records = new RecordStore(db);
        keys = new IdempotencyStore(db, Duration.ofHours(24));
        audits = new AuditLog(db, true);
        service = new PushService(db, records, new FencingStore(), keys, Clock.systemUTC());
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static PushRequest oneChange(String changeId) {
        return PushRequest.parse(
                TestClient.oneChange(changeId, "rec-1", 0, "{\"title\":\"T\"}").getBytes(StandardCharsets.UTF_8));
    }

    private boolean recordExists() throws SQLException {
        try (Connection c = db.connection()) {
            return records.find(c, "alice", "course_sync", "rec-1").isPresent();
        }
    }

    @Test
    void aPushWhoseAuditRowCannotBeWrittenAppliesAndStoresNothing() throws Exception {
        // A scope value longer than its column makes the audit insert fail inside the push's transaction.
        RequestAudit unwritable =
                new RequestAudit(audits, AuditEntry.PUSH, "alice", "x".repeat(300), null, null, "k-1");

        assertThatThrownBy(() ->
                        service.execute("alice", "course_sync", "k-1", "hash", oneChange("c-1"), null, unwritable))
                .isInstanceOf(SQLException.class);

        assertThat(unwritable.isWritten()).isFalse();
        assertThat(recordExists()).isFalse();
        assertThat(keys.find("alice", "k-1", System.currentTimeMillis())).isEmpty();
        assertThat(audits.read(0, 10).entries()).isEmpty();
    }

    @Test
    void aCommittedPushHasExactlyOneRowListingWhatItApplied() throws Exception {
        RequestAudit audit = new RequestAudit(audits, AuditEntry.PUSH, "alice", "course_sync", "dev", 4L, "k-1");
        audit.authUser("alice");

        service.execute("alice", "course_sync", "k-1", "hash", oneChange("c-1"), new Fencing("dev", 4), audit);

        assertThat(audit.isWritten()).isTrue();
        assertThat(recordExists()).isTrue();
        assertThat(audits.read(0, 10).entries()).singleElement().satisfies(s -> {
            assertThat(s.entry().status()).isEqualTo(200);
            assertThat(s.entry().applied()).containsExactly("c-1");
            assertThat(s.entry().fencingToken()).isEqualTo(4L);
        });
    }

    @Test
    void changeIdsWithCommasOrPercentSignsSurviveTheCommaSeparatedColumn() {
        java.util.List<String> ids = java.util.List.of("a,b", "100%", "%2C", "plain");

        assertThat(AuditLog.splitIds(AuditLog.joinIds(ids))).isEqualTo(ids);
        assertThat(AuditLog.joinIds(java.util.List.of("c1", "c2"))).isEqualTo("c1,c2");
        assertThat(AuditLog.splitIds("")).isEmpty();
    }
}
