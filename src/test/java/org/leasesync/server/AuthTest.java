package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthTest extends ServerTestBase {

    private static final String ALICE_CHANGES = TestClient.changesPath("alice", "course_sync");

    @Test
    void missingTokenIs401WithWwwAuthenticate() throws Exception {
        TestClient.Resp r = client.get(ALICE_CHANGES, null, Map.of());

        assertThat(r.status()).isEqualTo(401);
        assertThat(r.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(r.json().get("code").asText()).isEqualTo("unauthorized");
    }

    @Test
    void unknownTokenAndWrongSchemeAre401() throws Exception {
        assertThat(client.get(ALICE_CHANGES, "not-a-real-token", Map.of()).status())
                .isEqualTo(401);
        TestClient.Resp basic =
                client.call(client.builder(ALICE_CHANGES, null, Map.of("Authorization", "Basic YWxpY2U6cHc="))
                        .get()
                        .build());
        assertThat(basic.status()).isEqualTo(401);
    }

    @Test
    void alicesTokenOnBobsPathsIs403AndChangesNothing() throws Exception {
        String alice = server.tokenFor("alice");

        TestClient.Resp pull = client.get(TestClient.changesPath("bob", "course_sync"), alice, Map.of());
        TestClient.Resp push = client.post(
                TestClient.changesPath("bob", "course_sync"),
                alice,
                Map.of("Idempotency-Key", "k"),
                TestClient.oneChange("c-evil", "course-1", 1, "{}"));
        TestClient.Resp status = client.get("/v1/users/bob/scopes/course_sync/pushes/k", alice, Map.of());

        assertThat(pull.status()).isEqualTo(403);
        assertThat(push.status()).isEqualTo(403);
        assertThat(status.status()).isEqualTo(403);
        assertThat(push.json().get("code").asText()).isEqualTo("forbidden");
        assertThat(server.stats().changesApplied()).isZero();
    }

    @Test
    void adminAndUserTokensAreNotInterchangeable() throws Exception {
        assertThat(client.get(ALICE_CHANGES, server.adminToken(), Map.of()).status())
                .isEqualTo(403);
        assertThat(client.get("/v1/admin/stats", server.tokenFor("alice"), Map.of())
                        .status())
                .isEqualTo(403);
        assertThat(client.get("/v1/admin/stats", null, Map.of()).status()).isEqualTo(401);
        assertThat(client.get("/v1/admin/stats", server.adminToken(), Map.of()).status())
                .isEqualTo(200);
    }

    @Test
    void tokensAreLongRandomAndDistinct() {
        String alice = server.tokenFor("alice");
        String bob = server.tokenFor("bob");

        assertThat(alice).hasSizeGreaterThanOrEqualTo(32).isNotEqualTo(bob).isNotEqualTo(server.adminToken());
        assertThat(server.tokenFor("alice")).isEqualTo(alice);
    }
}
