package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.leasesync.testing.MutableClock;

/** The audit log (docs/protocol.md §8): one row per user request to pull, push and push status. */
class AuditTest extends ServerTestBase {

    private static final Instant START = Instant.parse("2026-11-30T10:00:00Z");
    private static final String ALICE = TestClient.changesPath("alice", "course_sync");

    private final MutableClock clock = new MutableClock(START);

    @Override
    protected ServerConfig config() {
        return ServerConfig.defaults().withAudit(true).withClock(clock);
    }

    private List<JsonNode> entries() throws IOException {
        TestClient.Resp r = client.adminAudit(null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("hasMore").asBoolean()).isFalse();
        List<JsonNode> out = new ArrayList<>();
        r.json().get("entries").forEach(out::add);
        return out;
    }

    private static Map<String, String> fenced(long token, String clientId) {
        return Map.of("Fencing-Token", Long.toString(token), "Client-Id", clientId);
    }

    private TestClient.Resp fencedPush(String key, long token, String clientId, String body) throws IOException {
        return client.post(
                ALICE,
                server.tokenFor("alice"),
                Map.of("Idempotency-Key", key, "Fencing-Token", Long.toString(token), "Client-Id", clientId),
                body);
    }

    private static List<String> ids(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void pullPushAndPushStatusAreRecordedInOrderWithTheirHeadersStatusAndOutcomes() throws Exception {
        assertThat(client.get(ALICE, server.tokenFor("alice"), fenced(3, "dev-1"))
                        .status())
                .isEqualTo(200);
        clock.advance(Duration.ofSeconds(1));
        String body = TestClient.body(
                TestClient.change("c-new", "course-new", 0, "{\"title\":\"Topology\"}"),
                TestClient.change("c-conflict", "course-1", 7, "{\"title\":\"stale\"}"));
        assertThat(fencedPush("k-1", 3, "dev-1", body).status()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(1));
        assertThat(client.pushStatus("alice", "course_sync", "k-1").status()).isEqualTo(200);

        List<JsonNode> e = entries();

        assertThat(e).hasSize(3);
        assertThat(e.get(0).get("seq").asLong()).isLessThan(e.get(1).get("seq").asLong());
        assertThat(e.get(1).get("seq").asLong()).isLessThan(e.get(2).get("seq").asLong());
        JsonNode pull = e.get(0);
        assertThat(pull.get("op").asText()).isEqualTo("pull");
        assertThat(pull.get("atMs").asLong()).isEqualTo(START.toEpochMilli());
        assertThat(pull.get("pathUser").asText()).isEqualTo("alice");
        assertThat(pull.get("authUser").asText()).isEqualTo("alice");
        assertThat(pull.get("scope").asText()).isEqualTo("course_sync");
        assertThat(pull.get("clientId").asText()).isEqualTo("dev-1");
        assertThat(pull.get("fencingToken").asLong()).isEqualTo(3);
        assertThat(pull.get("idempotencyKey").isNull()).isTrue();
        assertThat(pull.get("status").asInt()).isEqualTo(200);
        assertThat(pull.get("code").isNull()).isTrue();
        assertThat(ids(pull.get("applied"))).isEmpty();
        assertThat(ids(pull.get("duplicates"))).isEmpty();
        assertThat(ids(pull.get("conflicts"))).isEmpty();
        JsonNode push = e.get(1);
        assertThat(push.get("op").asText()).isEqualTo("push");
        assertThat(push.get("atMs").asLong()).isEqualTo(START.plusSeconds(1).toEpochMilli());
        assertThat(push.get("idempotencyKey").asText()).isEqualTo("k-1");
        assertThat(push.get("clientId").asText()).isEqualTo("dev-1");
        assertThat(push.get("fencingToken").asLong()).isEqualTo(3);
        assertThat(push.get("status").asInt()).isEqualTo(200);
        assertThat(ids(push.get("applied"))).containsExactly("c-new");
        assertThat(ids(push.get("duplicates"))).isEmpty();
        assertThat(ids(push.get("conflicts"))).containsExactly("c-conflict");
        JsonNode status = e.get(2);
        assertThat(status.get("op").asText()).isEqualTo("push_status");
        assertThat(status.get("idempotencyKey").asText()).isEqualTo("k-1");
        assertThat(status.get("clientId").isNull()).isTrue();
        assertThat(status.get("fencingToken").isNull()).isTrue();
        assertThat(status.get("status").asInt()).isEqualTo(200);
        assertThat(ids(status.get("applied"))).isEmpty();
    }

    @Test
    void aDropAfterApplyPushIsRecordedAsAppliedWith200() throws Exception {
        server.faults().setDropAfterApply(1);

        assertThatThrownBy(() -> client.push(
                        "alice",
                        "course_sync",
                        "k-drop",
                        TestClient.oneChange("c-drop", "course-1", 1, "{\"title\":\"dropped\"}")))
                .isInstanceOf(IOException.class);

        List<JsonNode> e = entries();
        assertThat(e).singleElement().satisfies(row -> {
            assertThat(row.get("op").asText()).isEqualTo("push");
            assertThat(row.get("idempotencyKey").asText()).isEqualTo("k-drop");
            assertThat(row.get("status").asInt()).isEqualTo(200);
            assertThat(ids(row.get("applied"))).containsExactly("c-drop");
        });
    }

    @Test
    void aResendOfAnAppliedChangeListsItUnderDuplicatesAndAReplayAppliesNothing() throws Exception {
        String body = TestClient.oneChange("c-1", "course-1", 1, "{\"title\":\"once\"}");
        assertThat(client.push("alice", "course_sync", "k-1", body).status()).isEqualTo(200);
        assertThat(client.push("alice", "course_sync", "k-2", body).status()).isEqualTo(200); // new key
        TestClient.Resp replay = client.push("alice", "course_sync", "k-1", body); // same key
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");

        List<JsonNode> e = entries();

        assertThat(e).hasSize(3);
        assertThat(ids(e.get(0).get("applied"))).containsExactly("c-1");
        assertThat(ids(e.get(1).get("applied"))).isEmpty();
        assertThat(ids(e.get(1).get("duplicates"))).containsExactly("c-1");
        assertThat(e.get(2).get("idempotencyKey").asText()).isEqualTo("k-1");
        assertThat(e.get(2).get("status").asInt()).isEqualTo(200);
        assertThat(ids(e.get(2).get("applied"))).isEmpty();
        assertThat(ids(e.get(2).get("duplicates"))).isEmpty();
    }

    @Test
    void aCrossUserRequestIsRecordedWithTheTokensUserAndThePathsUser() throws Exception {
        String alice = server.tokenFor("alice");
        client.post(
                TestClient.changesPath("bob", "course_sync"),
                alice,
                Map.of("Idempotency-Key", "k-evil"),
                TestClient.oneChange("c-evil", "course-1", 1, "{}"));
        client.get(TestClient.changesPath("bob", "course_sync"), "not-a-real-token", Map.of());
        client.get(TestClient.changesPath("bob", "course_sync"), server.adminToken(), Map.of());

        List<JsonNode> e = entries();

        assertThat(e).hasSize(3);
        assertThat(e.get(0).get("op").asText()).isEqualTo("push");
        assertThat(e.get(0).get("pathUser").asText()).isEqualTo("bob");
        assertThat(e.get(0).get("authUser").asText()).isEqualTo("alice");
        assertThat(e.get(0).get("status").asInt()).isEqualTo(403);
        assertThat(e.get(0).get("code").asText()).isEqualTo("forbidden");
        assertThat(e.get(0).get("idempotencyKey").asText()).isEqualTo("k-evil");
        assertThat(ids(e.get(0).get("applied"))).isEmpty();
        assertThat(e.get(1).get("authUser").isNull()).isTrue();
        assertThat(e.get(1).get("status").asInt()).isEqualTo(401);
        assertThat(e.get(1).get("code").asText()).isEqualTo("invalid_token");
        assertThat(e.get(2).get("authUser").asText()).isEqualTo("admin"); // the admin account's session
        assertThat(e.get(2).get("status").asInt()).isEqualTo(403);
    }

    @Test
    void refusedAndFailedRequestsAreRecordedWithTheirStatusAndCode() throws Exception {
        client.get(ALICE, server.tokenFor("alice"), fenced(5, "dev"));
        client.get(ALICE, server.tokenFor("alice"), fenced(4, "dev")); // stale
        server.faults().setThrottle(1);
        client.pull("alice", "course_sync", null); // throttled
        server.faults().setFailPush(1);
        client.push("alice", "course_sync", "k-fail", TestClient.oneChange("c-f", "course-1", 1, "{}"));
        client.pull("alice", "course_sync", "limit=0"); // bad request
        client.pull("alice", "photos", null); // no such scope

        List<JsonNode> e = entries();

        assertThat(e)
                .extracting(n -> n.get("op").asText() + " " + n.get("status").asInt() + " "
                        + n.get("code").asText())
                .containsExactly(
                        "pull 200 null",
                        "pull 409 stale_fencing_token",
                        "pull 429 rate_limited",
                        "push 500 internal_error",
                        "pull 400 bad_request",
                        "pull 404 unknown_scope");
        assertThat(e.get(1).get("fencingToken").asLong()).isEqualTo(4);
        assertThat(e.get(2).get("authUser").asText()).isEqualTo("alice"); // looked up though not checked
        assertThat(ids(e.get(3).get("applied"))).isEmpty();
        assertThat(e.get(5).get("scope").asText()).isEqualTo("photos");
    }

    @Test
    void requestsToOtherEndpointsAndAdminRequestsAreNotRecorded() throws Exception {
        client.get("/v1/users/alice/scopes/course_sync/nothing", server.tokenFor("alice"), Map.of());
        client.put(ALICE, server.tokenFor("alice"), "{}");
        client.adminStats();

        assertThat(entries()).isEmpty();
    }

    @Test
    void pagingWithAfterAndLimitReturnsRowsInSeqOrderAndSaysWhetherMoreRemain() throws Exception {
        for (int i = 0; i < 5; i++) {
            client.pull("alice", "course_sync", null);
        }
        List<Long> seqs = new ArrayList<>();
        long after = 0;
        boolean more = true;
        int pages = 0;
        while (more) {
            JsonNode page = client.adminAudit("after=" + after + "&limit=2").json();
            for (JsonNode n : page.get("entries")) {
                seqs.add(n.get("seq").asLong());
                after = n.get("seq").asLong();
            }
            more = page.get("hasMore").asBoolean();
            pages++;
        }

        assertThat(pages).isEqualTo(3);
        assertThat(seqs).hasSize(5).isSorted().doesNotHaveDuplicates();
        assertThat(client.adminAudit("after=" + seqs.get(4)).json().get("entries"))
                .isEmpty();
        assertThat(client.adminAudit("after=" + seqs.get(1))
                        .json()
                        .get("entries")
                        .get(0)
                        .get("seq")
                        .asLong())
                .isEqualTo(seqs.get(2));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "limit=0      | limit must be an integer 1..10000 but was '0'",
                "limit=10001  | limit must be an integer 1..10000",
                "limit=many   | limit",
                "after=-1     | after must be an integer >= 0 but was '-1'",
                "after=x      | after"
            })
    void badPagingValuesAre400NamingTheParameter(String query, String message) throws Exception {
        TestClient.Resp r = client.adminAudit(query);

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("code").asText()).isEqualTo("bad_request");
        assertThat(r.json().get("message").asText()).contains(message);
    }

    @Test
    void theAuditEndpointRefusesUserTokensAndRequestsWithoutToken() throws Exception {
        TestClient.Resp user = client.get("/v1/admin/audit", server.tokenFor("alice"), Map.of());
        TestClient.Resp none = client.get("/v1/admin/audit", null, Map.of());

        assertThat(user.status()).isEqualTo(403);
        assertThat(user.json().get("code").asText()).isEqualTo("forbidden");
        assertThat(none.status()).isEqualTo(401);
    }

    @Test
    void withoutAuditTheEndpointAnswers404AuditOffNamingTheOption() throws Exception {
        try (ReferenceServer plain = ReferenceServer.start(ServerConfig.defaults())) {
            TestClient plainClient = new TestClient(plain);
            plainClient.pull("alice", "course_sync", null);

            TestClient.Resp r = plainClient.adminAudit(null);

            assertThat(r.status()).isEqualTo(404);
            assertThat(r.json().get("code").asText()).isEqualTo("audit_off");
            assertThat(r.json().get("message").asText()).contains("--audit");
        }
    }
}
