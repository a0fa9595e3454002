package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FencingTest extends ServerTestBase {

    private TestClient.Resp push(String key, long fencingToken, String clientId, String body) throws Exception {
        return client.post(
                TestClient.changesPath("alice", "course_sync"),
                server.tokenFor("alice"),
                Map.of("Idempotency-Key", key, "Fencing-Token", Long.toString(fencingToken), "Client-Id", clientId),
                body);
    }

    private TestClient.Resp pull(long fencingToken, String clientId) throws Exception {
        return client.get(
                TestClient.changesPath("alice", "course_sync"),
                server.tokenFor("alice"),
                Map.of("Fencing-Token", Long.toString(fencingToken), "Client-Id", clientId));
    }

    @Test
    void aLowerFencingTokenIsRefusedWith409AndNothingIsApplied() throws Exception {
        String newer = TestClient.oneChange("c-new", "course-1", 1, "{\"title\":\"epoch 5\"}");
        assertThat(push("k-5", 5, "alice|course_sync", newer).status()).isEqualTo(200);

        TestClient.Resp stale = push(
                "k-4", 4, "alice|course_sync", TestClient.oneChange("c-old", "course-2", 1, "{\"title\":\"epoch 4\"}"));

        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.json().get("code").asText()).isEqualTo("stale_fencing_token");
        assertThat(stale.json().get("highestToken").asLong())
                .as("the highest token seen, to move past")
                .isEqualTo(5);
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsOnlyKeys("c-new");
        assertThat(client.pushStatus("alice", "course_sync", "k-4")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
        assertThat(client.pull("alice", "course_sync", null)
                        .json()
                        .get("changes")
                        .toString())
                .doesNotContain("epoch 4");
    }

    @Test
    void equalAndHigherTokensAreAccepted() throws Exception {
        assertThat(push("k-a", 3, "dev-1", TestClient.oneChange("a", "course-1", 1, "{}"))
                        .status())
                .isEqualTo(200);
        assertThat(push("k-b", 3, "dev-1", TestClient.oneChange("b", "course-2", 1, "{}"))
                        .status())
                .isEqualTo(200);
        assertThat(push("k-c", 9, "dev-1", TestClient.oneChange("c", "course-3", 1, "{}"))
                        .status())
                .isEqualTo(200);
        assertThat(server.stats().changesApplied()).isEqualTo(3);
    }

    @Test
    void tokensAreTrackedPerClientId() throws Exception {
        push("k-a", 10, "dev-1", TestClient.oneChange("a", "course-1", 1, "{}"));

        TestClient.Resp other = push("k-b", 1, "dev-2", TestClient.oneChange("b", "course-2", 1, "{}"));

        assertThat(other.status()).isEqualTo(200);
    }

    @Test
    void aReplayOfACompletedKeyIsAnsweredEvenWhenItsTokenIsNowStale() throws Exception {
        String body = TestClient.oneChange("c-1", "course-1", 1, "{}");
        TestClient.Resp first = push("k-1", 1, "dev", body);
        push("k-2", 2, "dev", TestClient.oneChange("c-2", "course-2", 1, "{}"));

        TestClient.Resp replay = push("k-1", 1, "dev", body);

        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.body()).isEqualTo(first.body());
    }

    @Test
    void fencingTokenWithoutClientIdOrNotANumberOrABadBodyIs400() throws Exception {
        TestClient.Resp lone = client.post(
                TestClient.changesPath("alice", "course_sync"),
                server.tokenFor("alice"),
                Map.of("Idempotency-Key", "k", "Fencing-Token", "3"),
                TestClient.oneChange("a", "course-1", 1, "{}"));
        TestClient.Resp noChanges = push("k", 0, "dev", "{}");
        TestClient.Resp text = client.post(
                TestClient.changesPath("alice", "course_sync"),
                server.tokenFor("alice"),
                Map.of("Idempotency-Key", "k", "Fencing-Token", "three", "Client-Id", "dev"),
                "{\"changes\":[]}");

        assertThat(lone.status()).isEqualTo(400);
        assertThat(lone.json().get("message").asText()).contains("Client-Id");
        assertThat(noChanges.status()).isEqualTo(400);
        assertThat(text.status()).isEqualTo(400);
        assertThat(text.json().get("message").asText()).contains("Fencing-Token");
    }

    @Test
    void aPullWithALowerTokenThanAnEarlierPushOrPullOfTheSameClientIsRefusedWith409AndReturnsNothing()
            throws Exception {
        assertThat(pull(4, "dev").status()).isEqualTo(200);
        assertThat(push("k-6", 6, "dev", TestClient.oneChange("c-6", "course-1", 1, "{}"))
                        .status())
                .isEqualTo(200);

        TestClient.Resp afterPull = pull(3, "dev");
        TestClient.Resp afterPush = pull(5, "dev");

        assertThat(afterPull.status()).isEqualTo(409);
        assertThat(afterPull.json().get("code").asText()).isEqualTo("stale_fencing_token");
        assertThat(afterPull.json().has("changes")).isFalse();
        assertThat(afterPush.status()).isEqualTo(409);
        assertThat(afterPush.json().get("code").asText()).isEqualTo("stale_fencing_token");
        assertThat(afterPull.json().get("highestToken").asLong()).isEqualTo(6);
        assertThat(afterPush.json().get("highestToken").asLong()).isEqualTo(6);
    }

    @Test
    void aPullWithAnEqualOrHigherTokenIsAnsweredAndRecordsTheHigherToken() throws Exception {
        assertThat(pull(2, "dev").status()).isEqualTo(200);
        assertThat(pull(2, "dev").status()).isEqualTo(200);
        assertThat(pull(8, "dev").status()).isEqualTo(200);

        TestClient.Resp stale = push("k-7", 7, "dev", TestClient.oneChange("c-7", "course-1", 1, "{}"));

        assertThat(stale.status()).isEqualTo(409);
        assertThat(server.stats().changesApplied()).isZero();
    }

    @Test
    void staleRunsLatePushIsRefusedAfterSuccessorsFirstPull() throws Exception {
        assertThat(pull(1, "alice|course_sync@dev").status()).isEqualTo(200); // run with epoch 1 pulls, then freezes
        assertThat(pull(2, "alice|course_sync@dev").status()).isEqualTo(200); // its successor (epoch 2) pulls first

        TestClient.Resp late = push(
                "k-late",
                1,
                "alice|course_sync@dev",
                TestClient.oneChange("c-late", "course-1", 1, "{\"title\":\"from the frozen run\"}"));

        assertThat(late.status()).isEqualTo(409);
        assertThat(late.json().get("code").asText()).isEqualTo("stale_fencing_token");
        assertThat(server.stats().appliedByChangeId()).isEmpty();
        assertThat(client.pull("alice", "course_sync", null).body()).doesNotContain("from the frozen run");
        assertThat(client.pushStatus("alice", "course_sync", "k-late")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
    }

    @Test
    void pullsWithoutFencingHeadersAreNotChecked() throws Exception {
        pull(9, "dev");

        assertThat(client.pull("alice", "course_sync", null).status()).isEqualTo(200);
    }

    @Test
    void aPullWithOnlyOneFencingHeaderOrATokenThatIsNotANumberIs400() throws Exception {
        TestClient.Resp lone = client.get(
                TestClient.changesPath("alice", "course_sync"), server.tokenFor("alice"), Map.of("Fencing-Token", "3"));
        TestClient.Resp text = client.get(
                TestClient.changesPath("alice", "course_sync"),
                server.tokenFor("alice"),
                Map.of("Fencing-Token", "three", "Client-Id", "dev"));

        assertThat(lone.status()).isEqualTo(400);
        assertThat(lone.json().get("message").asText()).contains("Client-Id");
        assertThat(text.status()).isEqualTo(400);
        assertThat(text.json().get("message").asText()).contains("Fencing-Token");
    }
}
