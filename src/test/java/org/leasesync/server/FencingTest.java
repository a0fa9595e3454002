package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FencingTest extends ServerTestBase {

    private TestClient.Resp push(String key, long fencingToken, String clientId, String body) throws Exception {
        return client.post(TestClient.changesPath("alice", "course_sync"), server.tokenFor("alice"),
                Map.of("Idempotency-Key", key, "Fencing-Token", Long.toString(fencingToken), "Client-Id", clientId),
                body);
    }

    @Test
    void aLowerFencingTokenIsRefusedWith409AndNothingIsApplied() throws Exception {
        String newer = TestClient.oneChange("c-new", "course-1", 1, "{\"title\":\"epoch 5\"}");
        assertThat(push("k-5", 5, "alice|course_sync", newer).status()).isEqualTo(200);

        TestClient.Resp stale = push("k-4", 4, "alice|course_sync",
                TestClient.oneChange("c-old", "course-2", 1, "{\"title\":\"epoch 4\"}"));

        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.json().get("code").asText()).isEqualTo("stale_fencing_token");
        assertThat(server.stats().appliedByChangeId()).containsOnlyKeys("c-new");
        assertThat(client.pushStatus("alice", "course_sync", "k-4").json().get("state").asText()).isEqualTo("unknown");
        assertThat(client.pull("alice", "course_sync", null).json().get("changes").toString())
                .doesNotContain("epoch 4");
    }

    @Test
    void equalAndHigherTokensAreAccepted() throws Exception {
        assertThat(push("k-a", 3, "dev-1", TestClient.oneChange("a", "course-1", 1, "{}")).status()).isEqualTo(200);
        assertThat(push("k-b", 3, "dev-1", TestClient.oneChange("b", "course-2", 1, "{}")).status()).isEqualTo(200);
        assertThat(push("k-c", 9, "dev-1", TestClient.oneChange("c", "course-3", 1, "{}")).status()).isEqualTo(200);
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
        TestClient.Resp lone = client.post(TestClient.changesPath("alice", "course_sync"), server.tokenFor("alice"),
                Map.of("Idempotency-Key", "k", "Fencing-Token", "3"), TestClient.oneChange("a", "course-1", 1, "{}"));
        TestClient.Resp noChanges = push("k", 0, "dev", "{}");
        TestClient.Resp text = client.post(TestClient.changesPath("alice", "course_sync"), server.tokenFor("alice"),
                Map.of("Idempotency-Key", "k", "Fencing-Token", "three", "Client-Id", "dev"), "{\"changes\":[]}");

        assertThat(lone.status()).isEqualTo(400);
        assertThat(lone.json().get("message").asText()).contains("Client-Id");
        assertThat(noChanges.status()).isEqualTo(400);
        assertThat(text.status()).isEqualTo(400);
        assertThat(text.json().get("message").asText()).contains("Fencing-Token");
    }
}
