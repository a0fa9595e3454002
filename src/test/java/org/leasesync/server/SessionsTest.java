package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.Passwords;
import org.leasesync.server.store.SignInLimits;
import org.leasesync.testing.MutableClock;

/**
 * Accounts and sessions over real HTTP (docs/protocol.md §2, §12): sign-in, the one refusal for
 * unknown user / wrong password / disabled account, the caller's session list, sign-out and
 * revocation, idle expiry on the server's clock, admin rights, and the sign-in limits.
 */
class SessionsTest extends ServerTestBase {

    static final String PASSWORD = "correct horse battery staple";
    private static final String CHANGES = TestClient.changesPath("carol", "course_sync");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    @Override
    protected ServerConfig config() {
        return super.config().withClock(clock).withSessionIdle(Duration.ofDays(90));
    }

    @BeforeEach
    void accounts() throws Exception {
        server.accounts().create("carol", Passwords.hash(PASSWORD), false);
        server.accounts().create("root", Passwords.hash(PASSWORD), true);
    }

    TestClient.Resp signIn(String user, String password, String device) throws Exception {
        String body = "{\"user\":" + TestClient.JSON.writeValueAsString(user) + ",\"password\":"
                + TestClient.JSON.writeValueAsString(password)
                + (device == null ? "" : ",\"device\":" + TestClient.JSON.writeValueAsString(device)) + "}";
        return client.post("/v1/sessions", null, Map.of(), body);
    }

    String tokenOf(String user, String device) throws Exception {
        TestClient.Resp r = signIn(user, PASSWORD, device);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("token").asText();
    }

    TestClient.Resp delete(String path, String token) throws Exception {
        return client.call(client.builder(path, token, Map.of()).delete().build());
    }

    @Test
    void signingInAnswers201WithATokenTheSessionAndItsExpiry() throws Exception {
        TestClient.Resp r = signIn("carol", PASSWORD, "carol-laptop");

        assertThat(r.status()).as(r.body()).isEqualTo(201);
        JsonNode b = r.json();
        assertThat(b.get("token").asText()).matches("[A-Za-z0-9_-]{43}");
        assertThat(b.get("sessionId").asText()).isNotBlank();
        assertThat(b.get("user").asText()).isEqualTo("carol");
        assertThat(b.get("admin").asBoolean()).isFalse();
        assertThat(Instant.parse(b.get("expiresAt").asText()))
                .isEqualTo(clock.instant().plus(Duration.ofDays(90)));
        assertThat(client.get(CHANGES, b.get("token").asText(), Map.of()).status())
                .isEqualTo(200);
        assertThat(signIn("root", PASSWORD, null).json().get("admin").asBoolean())
                .isTrue();
    }

    @Test
    void anUnknownUserAWrongPasswordAndADisabledAccountGetTheSameAnswer() throws Exception {
        server.accounts().create("dave", Passwords.hash(PASSWORD), false);
        server.accounts().setDisabled("dave", true);

        List<TestClient.Resp> refused = List.of(
                signIn("nobody", PASSWORD, null),
                signIn("carol", "wrong", null),
                signIn("dave", PASSWORD, null),
                signIn("not a name!", PASSWORD, null));

        for (TestClient.Resp r : refused) {
            assertThat(r.status()).as(r.body()).isEqualTo(401);
            assertThat(r.json().get("code").asText()).isEqualTo("invalid_credentials");
            assertThat(r.json().get("message").asText()).isEqualTo("wrong user name or password");
            assertThat(r.body()).doesNotContain("token");
        }
    }

    @Test
    void malformedSignInBodiesAre400() throws Exception {
        for (String body : List.of(
                "not json",
                "[]",
                "{\"user\":\"carol\"}",
                "{\"user\":\"carol\",\"password\":\"\"}",
                "{\"user\":\"carol\",\"password\":7}",
                "{\"user\":\"carol\",\"password\":\"" + "x".repeat(1025) + "\"}",
                "{\"user\":\"carol\",\"password\":\"p\",\"device\":\"" + "d".repeat(101) + "\"}",
                "{\"user\":\"carol\",\"password\":\"p\",\"device\":\"tab\\tbed\"}")) {
            TestClient.Resp r = client.post("/v1/sessions", null, Map.of(), body);
            assertThat(r.status()).as(body + " -> " + r.body()).isEqualTo(400);
            assertThat(r.json().get("code").asText()).isEqualTo("bad_request");
        }
    }

    @Test
    void theSessionListShowsTheCallersLiveSessionsNewestFirstAndNoToken() throws Exception {
        String laptop = tokenOf("carol", "carol-laptop");
        clock.advance(Duration.ofMinutes(5));
        String phone = tokenOf("carol", "carol-phone");
        tokenOf("root", "elsewhere");

        TestClient.Resp r = client.get("/v1/sessions", phone, Map.of());

        assertThat(r.status()).isEqualTo(200);
        JsonNode s = r.json().get("sessions");
        assertThat(s).hasSize(2);
        assertThat(s.get(0).get("device").asText()).isEqualTo("carol-phone");
        assertThat(s.get(0).get("current").asBoolean()).isTrue();
        assertThat(s.get(1).get("device").asText()).isEqualTo("carol-laptop");
        assertThat(s.get(1).get("current").asBoolean()).isFalse();
        assertThat(s.get(1).get("createdAt").asText()).isEqualTo("2026-11-30T10:00:00Z");
        assertThat(r.body()).doesNotContain(laptop).doesNotContain(phone);
        clock.advance(Duration.ofMinutes(1));
        assertThat(signIn("carol", PASSWORD, null).status()).isEqualTo(201);
        assertThat(client.get("/v1/sessions", phone, Map.of())
                        .json()
                        .get("sessions")
                        .get(0)
                        .get("device")
                        .asText())
                .isEqualTo("unnamed device");
    }

    @Test
    void signingOutEndsTheSessionAndItsTokenIsRefusedAsInvalid() throws Exception {
        String token = tokenOf("carol", "laptop");
        String other = tokenOf("carol", "phone");

        assertThat(delete("/v1/sessions/current", token).status()).isEqualTo(204);

        TestClient.Resp after = client.get(CHANGES, token, Map.of());
        assertThat(after.status()).isEqualTo(401);
        assertThat(after.json().get("code").asText()).isEqualTo("invalid_token");
        assertThat(after.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"leasesync\", error=\"invalid_token\"");
        assertThat(client.get("/v1/sessions", token, Map.of()).status()).isEqualTo(401);
        assertThat(client.get(CHANGES, other, Map.of()).status()).isEqualTo(200);
    }

    @Test
    void aDeviceIsRevokedByItsIdOnlyByItsOwnUser() throws Exception {
        String laptop = tokenOf("carol", "laptop");
        TestClient.Resp phone = signIn("carol", PASSWORD, "phone");
        String phoneId = phone.json().get("sessionId").asText();
        String root = tokenOf("root", "desk");

        TestClient.Resp foreign = delete("/v1/sessions/" + phoneId, root);
        assertThat(foreign.status()).isEqualTo(404);
        assertThat(foreign.json().get("code").asText()).isEqualTo("unknown_session");
        assertThat(delete("/v1/sessions/no-such-id", laptop).json().get("code").asText())
                .isEqualTo("unknown_session");

        assertThat(delete("/v1/sessions/" + phoneId, laptop).status()).isEqualTo(204);
        assertThat(client.get(CHANGES, phone.json().get("token").asText(), Map.of())
                        .status())
                .isEqualTo(401);
        assertThat(client.get(CHANGES, laptop, Map.of()).status()).isEqualTo(200);
        assertThat(delete("/v1/sessions/" + phoneId, laptop).status()).isEqualTo(404);
    }

    @Test
    void aSessionEndsWhenIdleForTheIdleTimeAndUseMovesItsEndForward() throws Exception {
        String used = tokenOf("carol", "used");
        String idle = tokenOf("carol", "idle");

        clock.advance(Duration.ofDays(60));
        assertThat(client.get(CHANGES, used, Map.of()).status()).isEqualTo(200);
        clock.advance(Duration.ofDays(31));

        assertThat(client.get(CHANGES, idle, Map.of()).json().get("code").asText())
                .isEqualTo("invalid_token");
        assertThat(client.get(CHANGES, used, Map.of()).status()).isEqualTo(200);
        JsonNode list = client.get("/v1/sessions", used, Map.of()).json().get("sessions");
        assertThat(list).hasSize(1);
        assertThat(Instant.parse(list.get(0).get("expiresAt").asText()))
                .isEqualTo(clock.instant().plus(Duration.ofDays(90)));
    }

    @Test
    void usingASessionWritesItsLastUseAtMostOnceAMinute() throws Exception {
        String token = tokenOf("carol", "laptop");
        clock.advance(Duration.ofSeconds(30));
        client.get(CHANGES, token, Map.of());
        assertThat(lastUsed(token)).isEqualTo("2026-11-30T10:00:00Z");
        clock.advance(Duration.ofSeconds(31));
        client.get(CHANGES, token, Map.of());
        assertThat(lastUsed(token)).isEqualTo("2026-11-30T10:01:01Z");
    }

    private String lastUsed(String token) throws Exception {
        return client.get("/v1/sessions", token, Map.of())
                .json()
                .get("sessions")
                .get(0)
                .get("lastUsedAt")
                .asText();
    }

    @Test
    void disablingOrDeletingAnAccountEndsItsSessionsOnTheNextRequest() throws Exception {
        String token = tokenOf("carol", "laptop");
        server.accounts().setDisabled("carol", true);
        assertThat(client.get(CHANGES, token, Map.of()).json().get("code").asText())
                .isEqualTo("invalid_token");
        server.accounts().setDisabled("carol", false);
        assertThat(client.get(CHANGES, token, Map.of()).status())
                .as("enabling brings no session back")
                .isEqualTo(401);

        String again = tokenOf("carol", "laptop");
        assertThat(client.get(CHANGES, again, Map.of()).status()).isEqualTo(200);
        server.accounts().delete("carol");
        assertThat(client.get(CHANGES, again, Map.of()).json().get("code").asText())
                .isEqualTo("invalid_token");
        assertThat(signIn("carol", PASSWORD, null).status()).isEqualTo(401);
    }

    @Test
    void adminEndpointsNeedAnAdminAccountsSession() throws Exception {
        TestClient.Resp user = client.get("/v1/admin/stats", tokenOf("carol", "x"), Map.of());
        assertThat(user.status()).isEqualTo(403);
        assertThat(user.json().get("code").asText()).isEqualTo("forbidden");
        String root = tokenOf("root", "x");
        assertThat(client.get("/v1/admin/stats", root, Map.of()).status()).isEqualTo(200);
        assertThat(client.get(TestClient.changesPath("root", "backup"), root, Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(client.get(CHANGES, root, Map.of()).status()).isEqualTo(403);
        TestClient.Resp none = client.get("/v1/admin/stats", null, Map.of());
        assertThat(none.json().get("code").asText()).isEqualTo("unauthorized");
        assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"leasesync\"");
        TestClient.Resp basic =
                client.call(client.builder("/v1/sessions", null, Map.of("Authorization", "Basic Y2Fyb2w6cHc="))
                        .get()
                        .build());
        assertThat(basic.json().get("code").asText()).isEqualTo("unauthorized");
        assertThat(client.get("/v1/admin/stats", "x".repeat(43), Map.of())
                        .json()
                        .get("code")
                        .asText())
                .isEqualTo("invalid_token");
    }

    @Test
    void tenFailuresForOneUserLockItEvenForTheRightPasswordUntilTheWindowPasses() throws Exception {
        for (int i = 0; i < SignInLimits.PER_USER; i++) {
            assertThat(signIn("carol", "wrong-" + i, null).status()).isEqualTo(401);
            clock.advance(Duration.ofSeconds(10));
        }

        TestClient.Resp locked = signIn("carol", PASSWORD, null);
        assertThat(locked.status()).as(locked.body()).isEqualTo(429);
        assertThat(locked.json().get("code").asText()).isEqualTo("too_many_attempts");
        // the first failure was 100 s ago; it leaves the 15-minute window in 800 s
        assertThat(locked.header("Retry-After")).isEqualTo("800");
        assertThat(signIn("nobody-else", "x", null).status())
                .as("other users are not locked")
                .isEqualTo(401);

        clock.advance(Duration.ofSeconds(700));
        for (int i = 0; i < 3; i++) {
            assertThat(signIn("carol", "wrong", null).header("Retry-After"))
                    .as("refusals are not counted")
                    .isEqualTo("100");
        }
        clock.advance(Duration.ofSeconds(100));
        assertThat(signIn("carol", PASSWORD, null).status()).isEqualTo(201);
        assertThat(signIn("carol", "wrong", null).status()).isEqualTo(401);
        assertThat(signIn("carol", PASSWORD, null).status())
                .as("the 10th failure in the window")
                .isEqualTo(429);
    }

    @Test
    void aHundredFailuresFromOneAddressLockItForEveryUser() throws Exception {
        SignInLimits limits = new SignInLimits(server.database(), clock);
        for (int i = 0; i < SignInLimits.PER_ADDRESS; i++) {
            SignInLimits.Attempt a = limits.begin(Optional.of("user" + i), "192.0.2.7");
            assertThat(a.refused()).as("attempt " + i).isFalse();
            clock.advance(Duration.ofSeconds(1));
        }

        SignInLimits.Attempt refused = limits.begin(Optional.of("someone"), "192.0.2.7");
        assertThat(refused.refused()).isTrue();
        assertThat(refused.retryAfterSeconds()).isEqualTo(15 * 60 - 100);
        assertThat(limits.begin(Optional.empty(), "192.0.2.8").refused())
                .as("another address")
                .isFalse();
        clock.advance(Duration.ofSeconds(15 * 60 - 100));
        SignInLimits.Attempt later = limits.begin(Optional.of("someone"), "192.0.2.7");
        assertThat(later.refused()).isFalse();
        limits.succeeded(later);
    }
}
