package org.leasesync.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import org.leasesync.server.store.Passwords;

/**
 * A reference server's accounts for tests outside this package (the window's sign-in tests): made
 * through the server's own store, sessions revoked and records read through the protocol, as an
 * operator and another device would.
 */
public final class ServerAccounts {

    private ServerAccounts() {}

    /** Makes an account that can sign in with {@code password}. Blocks (an Argon2id hash). */
    public static void add(ReferenceServer server, String user, String password) throws Exception {
        server.accounts().create(user, Passwords.hash(password), false);
    }

    /**
     * Ends every session of {@code user} (as {@code leasesync users revoke NAME} does), through
     * {@code DELETE /v1/sessions/{id}} from a session of its own that goes last.
     *
     * @return how many sessions were ended besides that one
     */
    public static int revokeAll(ReferenceServer server, String user) throws IOException {
        TestClient client = new TestClient(server);
        String token = server.tokenFor(user);
        TestClient.Resp list = client.get("/v1/sessions", token, Map.of());
        if (list.status() != 200) {
            throw new AssertionError("GET /v1/sessions: " + list.status() + " " + list.body());
        }
        int n = 0;
        String current = null;
        for (JsonNode s : list.json().get("sessions")) {
            if (s.get("current").asBoolean()) {
                current = s.get("sessionId").asText();
            } else {
                delete(client, token, s.get("sessionId").asText());
                n++;
            }
        }
        if (current != null) {
            delete(client, token, current);
        }
        return n;
    }

    private static void delete(TestClient client, String token, String id) throws IOException {
        TestClient.Resp r = client.call(
                client.builder("/v1/sessions/" + id, token, Map.of()).delete().build());
        if (r.status() != 204) {
            throw new AssertionError("DELETE /v1/sessions/" + id + ": " + r.status() + " " + r.body());
        }
    }

    /** The body of a full pull of {@code user}'s {@code scope}: its records as the server has them. */
    public static String records(ReferenceServer server, String user, String scope) throws IOException {
        TestClient.Resp r = new TestClient(server).pull(user, scope, null);
        if (r.status() != 200) {
            throw new AssertionError("pull: " + r.status() + " " + r.body());
        }
        return r.body();
    }

    /** How many live sessions {@code user} has (a session made here to ask included). */
    public static int sessions(ReferenceServer server, String user) throws IOException {
        TestClient.Resp list = new TestClient(server).get("/v1/sessions", server.tokenFor(user), Map.of());
        return list.json().get("sessions").size();
    }
}
