package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.leasesync.server.demo.Seed;

/** {@code GET /health} (docs/protocol.md §10) on H2; on PostgreSQL see ClusterTest and DatabaseOutageTest. */
class HealthTest extends ServerTestBase {

    @Test
    void answersWithoutATokenNamingTheInstanceAndIsNotCounted() throws Exception {
        TestClient.Resp r = client.get("/health", null, Map.of());

        assertThat(r.status()).isEqualTo(200);
        JsonNode body = r.json();
        assertThat(body.get("status").asText()).isEqualTo("ok");
        assertThat(body.get("instanceId").asText())
                .isEqualTo(server.instanceId())
                .matches(".+/\\d+/[0-9a-f]{12}");
        assertThat(body.get("database").asText()).isEqualTo("h2");
        assertThat(server.stats().requests()).isZero();
    }

    @Test
    void onlyGetIsAllowed() throws Exception {
        TestClient.Resp r = client.post("/health", null, Map.of(), "{}");

        assertThat(r.status()).isEqualTo(405);
        assertThat(r.header("Allow")).isEqualTo("GET");
    }

    @Test
    void twoServersInOneProcessHaveDifferentInstanceIds() {
        try (ReferenceServer other =
                ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE))) {
            assertThat(other.instanceId()).isNotEqualTo(server.instanceId());
        }
    }
}
