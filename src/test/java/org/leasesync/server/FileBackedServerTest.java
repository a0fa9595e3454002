package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.demo.Seed;

class FileBackedServerTest {

    @TempDir
    Path dataDir;

    @Test
    void keepsDataTokensAndIdempotencyRecordsAcrossARestartAndSeedsOnlyOnce() throws Exception {
        ServerConfig cfg = ServerConfig.defaults().withDataDir(dataDir);
        String aliceToken;
        String adminToken;
        String carolToken;
        String firstResponse;
        String body = TestClient.oneChange("c-keep", "course-1", 1, "{\"title\":\"kept\"}");
        try (ReferenceServer first = ReferenceServer.start(cfg)) {
            TestClient client = new TestClient(first);
            aliceToken = first.tokenFor("alice");
            adminToken = first.adminToken();
            carolToken = first.tokenFor("carol");
            firstResponse =
                    client.push("alice", "course_sync", "keep-key", body).body();
        }

        try (ReferenceServer second = ReferenceServer.start(cfg)) {
            TestClient client = new TestClient(second);
            // sessions outlive the server: the first server's tokens are valid on the second
            assertThat(client.get(TestClient.changesPath("alice", "backup"), aliceToken, Map.of())
                            .status())
                    .isEqualTo(200);
            assertThat(client.get(TestClient.changesPath("carol", "backup"), carolToken, Map.of())
                            .status())
                    .isEqualTo(200);
            assertThat(client.get("/v1/admin/stats", adminToken, Map.of()).status())
                    .isEqualTo(200);

            JsonNode changes = client.pull("alice", "course_sync", null).json().get("changes");
            assertThat(changes).hasSize(5);
            assertThat(changes.toString()).contains("kept");
            TestClient.Resp replay = client.push("alice", "course_sync", "keep-key", body);
            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(replay.body()).isEqualTo(firstResponse);
            assertThat(client.pull("bob", "message_sync", null).json().get("changes"))
                    .hasSize(5);
        }
    }

    @Test
    void aSecondServerOnTheSameDataDirFailsToStartWithAClearMessage() {
        ServerConfig cfg = ServerConfig.defaults().withDataDir(dataDir);
        try (ReferenceServer first = ReferenceServer.start(cfg)) {
            assertThatThrownBy(() -> ReferenceServer.start(cfg))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot open the server database");
            assertThat(first.tokenFor("alice")).isNotBlank();
        }
    }

    @Test
    void aPortInUseFailsToStart() {
        try (ReferenceServer first =
                ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE))) {
            assertThatThrownBy(
                            () -> ReferenceServer.start(ServerConfig.defaults().withPort(first.port())))
                    .isInstanceOf(java.io.UncheckedIOException.class)
                    .hasMessageContaining(Integer.toString(first.port()));
        }
    }
}
