package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.TestClient;

/**
 * {@code appliedByChangeId} counts per user+scope+change id, where the server de-duplicates
 * (protocol §5.1): one change id used by alice and by bob, or in two scopes, is no duplicate;
 * one user+scope applying a change id twice is counted twice.
 */
class StatsPerKeyTest {

    private static Map<String, Map<String, Integer>> onceEach() {
        return Map.of(
                "alice|course_sync",
                Map.of("c-shared", 1),
                "alice|message_sync",
                Map.of("c-shared", 1),
                "bob|course_sync",
                Map.of("c-shared", 1));
    }

    @ParameterizedTest(name = "audit log {0}")
    @ValueSource(booleans = {false, true})
    void oneChangeIdUsedByTwoUsersAndInTwoScopesIsAppliedOnceInEachAndNoDuplicate(boolean audit) throws Exception {
        try (ReferenceServer server =
                ReferenceServer.start(ServerConfig.defaults().withAudit(audit))) {
            TestClient client = new TestClient(server);
            String change = TestClient.oneChange("c-shared", "rec-shared", 0, "{\"t\":1}");
            for (String[] where :
                    new String[][] {{"alice", "course_sync"}, {"bob", "course_sync"}, {"alice", "message_sync"}}) {
                JsonNode result = client.push(where[0], where[1], "k-" + where[0] + "-" + where[1], change)
                        .json()
                        .get("results")
                        .get(0);
                assertThat(result.get("status").asText())
                        .as("%s|%s", where[0], where[1])
                        .isEqualTo("applied");
                assertThat(result.get("duplicate").asBoolean())
                        .as("%s|%s", where[0], where[1])
                        .isFalse();
            }
            JsonNode resent = client.push("alice", "course_sync", "k-again", change)
                    .json()
                    .get("results")
                    .get(0);
            assertThat(resent.get("duplicate").asBoolean())
                    .as("the same user+scope again: a duplicate")
                    .isTrue();

            ServerStats stats = server.stats();
            assertThat(stats.appliedByChangeId()).isEqualTo(onceEach());
            assertThat(stats.changesApplied()).isEqualTo(3);
            assertThat(stats.mostApplicationsOfOneChange()).isEqualTo(1);
            assertThat(stats.appliedIn("bob", "course_sync")).isEqualTo(Map.of("c-shared", 1));
            assertThat(stats.appliedIn("bob", "backup")).isEmpty();

            JsonNode json = client.adminStats().json();
            assertThat(json.get("changesApplied").asLong()).isEqualTo(3);
            assertThat(json.get("appliedByChangeId").toString())
                    .isEqualTo("{\"alice|course_sync\":{\"c-shared\":1},"
                            + "\"alice|message_sync\":{\"c-shared\":1},\"bob|course_sync\":{\"c-shared\":1}}");
        }
    }

    @Test
    void aChangeIdAppliedTwiceInOneUserAndScopeIsCountedTwiceAndOtherUsersStaySeparate() throws SQLException {
        try (ServerDatabase db = ServerDatabase.open((Path) null)) {
            auditPush(db, "alice", "course_sync", "c-1,c-2");
            auditPush(db, "alice", "course_sync", "c-1"); // what a broken server would record
            auditPush(db, "bob", "course_sync", "c-1");
            auditPush(db, "alice", "backup", "c-1");

            ServerStats stats = new StatsTables(db, true).snapshot();

            assertThat(stats.appliedByChangeId())
                    .isEqualTo(Map.of(
                            "alice|course_sync",
                            Map.of("c-1", 2, "c-2", 1),
                            "bob|course_sync",
                            Map.of("c-1", 1),
                            "alice|backup",
                            Map.of("c-1", 1)));
            assertThat(stats.mostApplicationsOfOneChange()).isEqualTo(2);
            assertThat(stats.changesApplied()).isEqualTo(5);
        }
    }

    @Test
    void withoutTheAuditLogTheAppliedChangeIdsAreCountedPerUserAndScope() throws SQLException {
        try (ServerDatabase db = ServerDatabase.open((Path) null)) {
            applied(db, "alice", "course_sync", "c-1");
            applied(db, "bob", "course_sync", "c-1");
            applied(db, "alice", "course_sync", "c-2");

            ServerStats stats = new StatsTables(db, false).snapshot();

            assertThat(stats.appliedByChangeId())
                    .isEqualTo(Map.of(
                            "alice|course_sync", Map.of("c-1", 1, "c-2", 1), "bob|course_sync", Map.of("c-1", 1)));
            assertThat(stats.mostApplicationsOfOneChange()).isEqualTo(1);
            assertThat(stats.changesApplied()).isEqualTo(3);
        }
    }

    private static void auditPush(ServerDatabase db, String user, String scope, String applied) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO request_audit"
                        + " (at_ms, path_user, auth_user, scope, op, status, applied, duplicates, conflicts)"
                        + " VALUES (0, ?, ?, ?, 'push', 200, ?, '', '')")) {
            ps.setString(1, user);
            ps.setString(2, user);
            ps.setString(3, scope);
            ps.setString(4, applied);
            ps.executeUpdate();
        }
    }

    private static void applied(ServerDatabase db, String user, String scope, String changeId) throws SQLException {
        try (Connection c = db.connection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO applied_changes"
                                + " (user_id, scope, change_id, record_id, record_version, applied_at_ms) VALUES (?, ?, ?, 'r', 1, 0)")) {
            ps.setString(1, user);
            ps.setString(2, scope);
            ps.setString(3, changeId);
            ps.executeUpdate();
        }
    }
}
