package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.server.faults.FaultSpec;
import org.leasesync.server.store.ServerStats;

class FaultsTest {

    private ReferenceServer server;
    private TestClient client;

    private void start(String... faults) {
        server = ReferenceServer.start(ServerConfig.defaults()
                .withFaults(
                        java.util.Arrays.stream(faults).map(FaultSpec::parse).toList()));
        client = new TestClient(server);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private long version(String user, String scope, String id) throws IOException {
        for (JsonNode c : client.pull(user, scope, null).json().get("changes")) {
            if (c.get("id").asText().equals(id)) {
                return c.get("version").asLong();
            }
        }
        return 0;
    }

    @Test
    void dropAfterApplyCommitsThenClosesTheConnectionAndTheStatusQuerySaysCompleted() throws Exception {
        start("drop-after-apply=1");
        String body = TestClient.oneChange("c-drop", "course-1", 1, "{\"title\":\"dropped\"}");

        assertThatThrownBy(() -> client.push("alice", "course_sync", "drop-key", body))
                .isInstanceOf(IOException.class);

        JsonNode status = client.pushStatus("alice", "course_sync", "drop-key").json();
        assertThat(status.get("state").asText()).isEqualTo("completed");
        assertThat(status.get("response").get("results").get(0).get("status").asText())
                .isEqualTo("applied");
        assertThat(status.get("response").get("results").get(0).get("version").asLong())
                .isEqualTo(2);
        TestClient.Resp resend = client.push("alice", "course_sync", "drop-key", body);
        assertThat(resend.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(resend.json()).isEqualTo(status.get("response"));
        assertThat(version("alice", "course_sync", "course-1")).isEqualTo(2);
        assertThat(server.stats().appliedByChangeId()).isEqualTo(Map.of("alice|course_sync", Map.of("c-drop", 1)));
        assertThat(server.faults().snapshot().dropAfterApply()).isZero();
    }

    @Test
    void failPushAppliesNothingStoresNothingAndTheSameKeyWorksAfterwards() throws Exception {
        start("fail-push=2");
        String body = TestClient.oneChange("c-fail", "course-1", 1, "{\"title\":\"x\"}");

        for (int i = 0; i < 2; i++) {
            TestClient.Resp r = client.push("alice", "course_sync", "fail-key", body);
            assertThat(r.status()).isEqualTo(500);
            assertThat(r.json().get("code").asText()).isEqualTo("internal_error");
            assertThat(r.body()).doesNotContain("Exception").doesNotContain("at org.");
            assertThat(client.pushStatus("alice", "course_sync", "fail-key")
                            .json()
                            .get("state")
                            .asText())
                    .isEqualTo("unknown");
        }
        assertThat(version("alice", "course_sync", "course-1")).isEqualTo(1);
        assertThat(server.stats().changesApplied()).isZero();

        TestClient.Resp ok = client.push("alice", "course_sync", "fail-key", body);
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.header("Idempotent-Replayed")).isNull();
        assertThat(version("alice", "course_sync", "course-1")).isEqualTo(2);
    }

    @Test
    void throttleGives429WithRetryAfterForAnyRequestThenRecovers() throws Exception {
        start("throttle=2");

        TestClient.Resp pull = client.pull("alice", "course_sync", null);
        TestClient.Resp push =
                client.push("alice", "course_sync", "t-key", TestClient.oneChange("c-t", "course-1", 1, "{}"));
        TestClient.Resp third = client.pull("alice", "course_sync", null);

        for (TestClient.Resp r : List.of(pull, push)) {
            assertThat(r.status()).isEqualTo(429);
            assertThat(r.header("Retry-After")).isEqualTo("1");
            assertThat(r.json().get("code").asText()).isEqualTo("rate_limited");
        }
        assertThat(third.status()).isEqualTo(200);
        assertThat(server.stats().changesApplied()).isZero();
    }

    @Test
    void throttleCanTellItsWaitAsAnHttpDateRoundedUpFromTheServersClock() throws Exception {
        java.time.Instant now = java.time.Instant.parse("2026-12-02T07:28:00.250Z");
        server = ReferenceServer.start(
                ServerConfig.defaults().withClock(java.time.Clock.fixed(now, java.time.ZoneOffset.UTC)));
        client = new TestClient(server);
        TestClient.Resp put = client.put(
                "/v1/admin/faults",
                server.adminToken(),
                "{\"throttle\":2,\"throttleRetryAfterSeconds\":3,\"throttleRetryAfterDate\":true}");
        assertThat(put.status()).isEqualTo(200);

        TestClient.Resp pull = client.pull("alice", "course_sync", null);

        assertThat(pull.status()).isEqualTo(429);
        // 07:28:00.250 rounds up to 07:28:01, plus 3 s; two-digit day, as IMF-fixdate requires
        assertThat(pull.header("Retry-After")).isEqualTo("Wed, 02 Dec 2026 07:28:04 GMT");
        assertThat(server.faults().snapshot().throttleRetryAfterDate()).isTrue();

        client.put("/v1/admin/faults", server.adminToken(), "{\"throttleRetryAfterDate\":false}");
        assertThat(client.pull("alice", "course_sync", null).header("Retry-After"))
                .isEqualTo("3");
        TestClient.Resp bad = client.put("/v1/admin/faults", server.adminToken(), "{\"throttleRetryAfterSeconds\":0}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("message").asText()).contains("throttleRetryAfterSeconds");
    }

    @Test
    void adminRequestsAreNeverThrottled() throws Exception {
        start("throttle=5");

        assertThat(client.adminStats().status()).isEqualTo(200);
        assertThat(server.faults().snapshot().throttle()).isEqualTo(5);
    }

    @Test
    void latencyDelaysEveryUserRequest() throws Exception {
        start("latency=200ms");

        long t0 = System.nanoTime();
        client.pull("alice", "course_sync", null);
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;

        assertThat(elapsedMs).isGreaterThanOrEqualTo(200);
    }

    @Test
    void faultsCanBeReadAndChangedThroughTheAdminApi() throws Exception {
        start("fail-push=1");
        String admin = server.adminToken();

        JsonNode before = client.get("/v1/admin/faults", admin, Map.of()).json();
        TestClient.Resp put = client.put("/v1/admin/faults", admin, "{\"throttle\":1,\"delayAfterApplyMs\":250}");

        assertThat(before.get("failPush").asInt()).isEqualTo(1);
        assertThat(put.status()).isEqualTo(200);
        assertThat(put.json().get("throttle").asInt()).isEqualTo(1);
        assertThat(put.json().get("failPush").asInt()).isEqualTo(1);
        assertThat(server.faults().snapshot()).isEqualTo(new FaultSettings(0, 1, 0, 250, 1));
        assertThat(server.faults().delayAfterApply()).isEqualTo(Duration.ofMillis(250));

        TestClient.Resp bad = client.put("/v1/admin/faults", admin, "{\"throttle\":-1}");
        TestClient.Resp unknown = client.put("/v1/admin/faults", admin, "{\"explode\":1}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("message").asText()).contains("throttle");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("message").asText()).contains("explode");
    }

    @Test
    void resetStatsZeroesTheCounters() throws Exception {
        start();
        client.push("alice", "course_sync", "r-key", TestClient.oneChange("c-r", "course-1", 1, "{}"));

        TestClient.Resp r = client.post("/v1/admin/reset-stats", server.adminToken(), Map.of(), "");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("pushes").asInt()).isZero();
        assertThat(server.stats()).isEqualTo(new ServerStats(0, 0, 0, Map.of(), 0));
    }
}
