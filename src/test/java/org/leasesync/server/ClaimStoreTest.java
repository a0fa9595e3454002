package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.store.ClaimStore;
import org.leasesync.server.store.ServerDatabase;

/** Idempotency-key claims on H2, where the database has one server: every other instance's claim is stale. */
class ClaimStoreTest {

    private ServerDatabase db;
    private ClaimStore claims;

    @BeforeEach
    void open() {
        db = ServerDatabase.open(null);
        claims = new ClaimStore(db, Clock.systemUTC());
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static void insertClaim(ServerDatabase db, String key, String instanceId) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO idempotency_claims"
                        + " (user_id, idem_key, scope, request_hash, instance_id, claim_id, claimed_at_ms)"
                        + " VALUES ('alice', ?, 'course_sync', 'h', ?, 'old-claim', 0)")) {
            ps.setString(1, key);
            ps.setString(2, instanceId);
            ps.executeUpdate();
        }
    }

    private static int rows(ServerDatabase db) throws SQLException {
        try (Connection c = db.connection();
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM idempotency_claims")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aClaimIsLiveWhileItsRequestRunsAndGoneAfterTheRelease() throws Exception {
        ClaimStore.Attempt first = claims.tryClaim("alice", "k", "course_sync", "h1");
        ClaimStore.Attempt second = claims.tryClaim("alice", "k", "course_sync", "h2");

        assertThat(first.mine()).isTrue();
        assertThat(second.mine()).isFalse();
        assertThat(second.claim()).isEqualTo(first.claim());
        assertThat(claims.current("alice", "k")).contains(first.claim());
        assertThat(claims.current("bob", "k")).isEmpty();
        assertThat(rows(db)).isEqualTo(1);

        claims.release("alice", "k", first.claim());

        assertThat(claims.current("alice", "k")).isEmpty();
        assertThat(rows(db)).isZero();
        assertThat(claims.tryClaim("alice", "k", "course_sync", "h2").mine()).isTrue();
    }

    @Test
    void onH2AClaimOfAnyOtherInstanceIsStaleAndReplaced() throws Exception {
        insertClaim(db, "k", "crashed-host/42/0123456789ab");

        assertThat(claims.current("alice", "k")).isEmpty();
        ClaimStore.Attempt a = claims.tryClaim("alice", "k", "course_sync", "h");

        assertThat(a.mine()).isTrue();
        assertThat(a.claim().instanceId()).isEqualTo(db.instanceId());
        assertThat(rows(db)).isEqualTo(1);
    }

    @Test
    void aRowOfThisInstanceThatItNoLongerHoldsIsStale() throws Exception {
        insertClaim(db, "k", db.instanceId());

        assertThat(claims.current("alice", "k")).isEmpty();
        assertThat(claims.tryClaim("alice", "k", "course_sync", "h").mine()).isTrue();
    }

    @Test
    void aFileBackedServerDropsClaimsLeftInItsDatabaseWhenItStarts(@TempDir Path dir) throws Exception {
        db.close();
        try (ServerDatabase file = ServerDatabase.open(dir)) {
            insertClaim(file, "left-over", "killed-host/7/ba9876543210");
        }
        db = ServerDatabase.open(null);

        try (ReferenceServer server =
                ReferenceServer.start(ServerConfig.defaults().withDataDir(dir))) {
            TestClient client = new TestClient(server);
            assertThat(client.pushStatus("alice", "course_sync", "left-over")
                            .json()
                            .get("state")
                            .asText())
                    .isEqualTo("unknown");
        }
        try (ServerDatabase file = ServerDatabase.open(dir)) {
            assertThat(rows(file)).isZero();
        }
    }
}
