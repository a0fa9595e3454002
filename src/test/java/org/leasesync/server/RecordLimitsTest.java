package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.protocol.RecordLimits;
import org.leasesync.remote.PayloadJson;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * The record limits ({@link RecordLimits}) end to end: the real client (its edit check, the push body
 * it builds, its pull) against the real reference server on loopback, on H2 here and on PostgreSQL in
 * {@link RecordLimitsPostgresTest}. At each limit: the record at the limit is synced exactly, one past
 * it is refused naming the record, and nothing else is held up.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RecordLimitsTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    ReferenceServer server;
    TestClient http;
    LocalStore store;
    ClientStack client;

    protected ServerConfig config() {
        return ServerConfig.defaults();
    }

    @BeforeEach
    void start() {
        server = ReferenceServer.start(config());
        http = new TestClient(server);
        store = LocalStore.openInMemory();
        client = new ClientStack(store, server.baseUrl(), Map.of("alice", server.tokenFor("alice")));
    }

    @AfterEach
    void stop() {
        client.close();
        store.close();
        server.close();
    }

    /** A compact JSON object nesting {@code depth} levels (the object itself is level 1). */
    static String nested(int depth) {
        return "{\"a\":".repeat(depth - 1) + "{\"v\":1}" + "}".repeat(depth - 1);
    }

    /** A compact JSON object of exactly {@code bytes} UTF-8 bytes. */
    static String sized(int bytes) {
        String empty = "{\"blob\":\"\"}";
        return "{\"blob\":\"" + "x".repeat(bytes - empty.length()) + "\"}";
    }

    /** An outbox entry as an older version, which checked less, may have saved it. */
    String insertRaw(String recordId, String payload) {
        String changeId = UUID.randomUUID().toString();
        store.database().transaction("insert a raw outbox entry", c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (user_id, scope, change_id, record_id,"
                    + " base_version, deleted, payload, created_at_ms, state) VALUES ('alice', 'course_sync', ?, ?, 0,"
                    + " FALSE, ?, 0, 'pending')")) {
                ps.setString(1, changeId);
                ps.setString(2, recordId);
                ps.setString(3, payload);
                ps.executeUpdate();
            }
            return null;
        });
        return changeId;
    }

    JdbcLocalEdits.OutboxItem item(String changeId) {
        return client.edits.outbox(ALICE).stream()
                .filter(i -> i.changeId().equals(changeId))
                .findFirst()
                .orElseThrow();
    }

    /** The server's current payload of a record, as a fresh client pulls it. */
    Map<String, String> pulledByAFreshClient() throws Exception {
        try (LocalStore other = LocalStore.openInMemory();
                ClientStack fresh =
                        new ClientStack(other, server.baseUrl(), Map.of("alice", server.tokenFor("alice")))) {
            RunResult r = fresh.sync(ALICE, TaskSource.MANUAL);
            assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
            Map<String, String> out = new java.util.TreeMap<>();
            fresh.edits.records(ALICE).forEach(rec -> out.put(rec.id(), rec.payloadJson()));
            return out;
        }
    }

    void assertRefusedNaming(TestClient.Resp r, String where, String what) {
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().path("code").asText()).isEqualTo("bad_request");
        assertThat(r.json().path("message").asText()).startsWith(where).contains(what);
    }

    @Test
    void aPayloadAtTheDepthLimitIsSyncedAndOneLevelDeeperIsSetAsideNamingIt() throws Exception {
        int limit = RecordLimits.MAX_PAYLOAD_DEPTH;
        assertThat(PayloadJson.normalize(nested(limit), "--payload")).isEqualTo(nested(limit));
        assertThatThrownBy(() -> PayloadJson.normalize(nested(limit + 1), "--payload"))
                .hasMessage(
                        "--payload is refused: its content nests more than 256 levels deep; a record may nest at most 256");

        client.edits.addEdit(ALICE, "below", nested(limit - 1), false);
        client.edits.addEdit(ALICE, "at", nested(limit), false);
        String over = insertRaw("over", nested(limit + 1));
        client.edits.addEdit(ALICE, "after", "{\"title\":\"after\"}", false);

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(item(over).state()).isEqualTo("rejected");
        assertThat(item(over).rejectedReason().orElseThrow())
                .isEqualTo("the edit of record 'over' cannot be sent: its"
                        + " content nests more than 256 levels deep; a record may nest at most 256");
        Map<String, String> pulled = pulledByAFreshClient();
        assertThat(pulled)
                .containsEntry("below", nested(limit - 1))
                .containsEntry("at", nested(limit))
                .containsEntry("after", "{\"title\":\"after\"}")
                .doesNotContainKey("over");

        // The server applies the same limit to any client, naming the entry.
        String body = "{\"changes\":[" + change("ok", nested(limit)) + "," + change("deep", nested(limit + 1)) + "]}";
        assertRefusedNaming(
                http.push("alice", "course_sync", UUID.randomUUID().toString(), body),
                "changes[1].payload of record 'deep' is refused",
                "nests more than 256 levels deep");
        // Only a body deeper than any message may be is refused as a whole, and the server stays well.
        String abyss = "{\"changes\":[" + change("abyss", nested(RecordLimits.MAX_MESSAGE_DEPTH)) + "]}";
        TestClient.Resp whole =
                http.push("alice", "course_sync", UUID.randomUUID().toString(), abyss);
        assertThat(whole.status()).as(whole.body()).isEqualTo(400);
        assertThat(whole.json().path("message").asText())
                .startsWith("malformed JSON")
                .contains("nesting depth");
        assertThat(http.pull("alice", "course_sync", null).status()).isEqualTo(200);
    }

    @Test
    void aPayloadOfExactlyTheSizeLimitIsSyncedAndOneByteMoreIsRefusedNamingIt() throws Exception {
        int limit = RecordLimits.MAX_PAYLOAD_BYTES;
        client.edits.addEdit(ALICE, "edge", sized(limit), false);
        assertThatThrownBy(() -> client.edits.addEdit(ALICE, "beyond", sized(limit + 1), false))
                .hasMessage("the edit of record 'beyond' cannot be synced: its content is 5,238,785 bytes; a record may"
                        + " have at most 5,238,784 bytes (5 MiB less 4 KiB)");

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(pulledByAFreshClient().get("edge")).isEqualTo(sized(limit));

        String body = "{\"changes\":[" + change("beyond", sized(limit + 1)) + "]}";
        assertThat(body.length()).isLessThan(RecordLimits.MAX_PUSH_BODY_BYTES);
        assertRefusedNaming(
                http.push("alice", "course_sync", UUID.randomUUID().toString(), body),
                "changes[0].payload of record 'beyond' is refused",
                "its content is 5,238,785 bytes");
    }

    @Test
    void idsAndPayloadsWithCharactersTheStoresCannotKeepAreRefusedNamingTheEntry() throws Exception {
        assertRefusedNaming(
                http.push(
                        "alice",
                        "course_sync",
                        UUID.randomUUID().toString(),
                        "{\"changes\":[" + changeWithId("\"a\\u0000b\"", "{}") + "]}"),
                "changes[0].id is refused",
                "record id 'a?b' has a control character (U+0000) at index 1");
        assertRefusedNaming(
                http.push(
                        "alice",
                        "course_sync",
                        UUID.randomUUID().toString(),
                        "{\"changes\":[" + changeWithId("\"lone\\ud800\"", "{}") + "]}"),
                "changes[0].id is refused",
                "unpaired surrogate at index 4");
        assertRefusedNaming(
                http.push(
                        "alice",
                        "course_sync",
                        UUID.randomUUID().toString(),
                        "{\"changes\":[" + change("half", "{\"t\":\"x\\udc00y\"}") + "]}"),
                "changes[0].payload of record 'half' is refused",
                "unpaired surrogate");
        assertThatThrownBy(() -> client.edits.addEdit(ALICE, "lone\ud800", "{}", false))
                .hasMessage("record id 'lone?' has an unpaired surrogate at index 4");
        assertThatThrownBy(() -> PayloadJson.normalize("{\"t\":\"x\\ud800\"}", "--payload"))
                .hasMessageStartingWith("--payload is refused: it has an unpaired surrogate");

        // U+0000 inside a payload string is kept: JSON writes it as an escape, which both stores hold.
        String withNul = "{\"t\":\"a\\u0000b\",\"pair\":\"\uD83D\uDE00\"}";
        client.edits.addEdit(ALICE, "nul-inside", PayloadJson.normalize(withNul, "--payload"), false);
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        JsonNode pulled = json.readTree(pulledByAFreshClient().get("nul-inside"));
        assertThat(pulled.path("t").textValue()).isEqualTo("a\u0000b");
        assertThat(pulled.path("pair").textValue()).isEqualTo("\uD83D\uDE00");
        assertThat(http.pull("alice", "course_sync", null).status()).isEqualTo(200);
    }

    @Test
    void aStoredRecordBeyondTheLimitsIsWithheldNamingItAndTheRestIsPulled() throws Exception {
        client.edits.addEdit(ALICE, "old-deep", "{\"v\":1}", false);
        client.edits.addEdit(ALICE, "old-abyss", "{\"v\":1}", false);
        client.edits.addEdit(ALICE, "fine", "{\"title\":\"fine\"}", false);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        // As an older server, which checked less, stored them.
        storeOnServer("old-deep", nested(RecordLimits.MAX_PAYLOAD_DEPTH + 1));
        storeOnServer("old-abyss", nested(RecordLimits.MAX_MESSAGE_DEPTH + 5));

        TestClient.Resp page = http.pull("alice", "course_sync", null);
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        JsonNode withheld = page.json().path("withheld");
        assertThat(withheld.findValuesAsText("id")).containsExactlyInAnyOrder("old-deep", "old-abyss");
        assertThat(withheld.get(0).path("reason").asText()).isNotBlank();
        assertThat(page.json().path("changes").findValuesAsText("id"))
                .contains("fine")
                .doesNotContain("old-deep", "old-abyss");

        assertThat(pulledByAFreshClient())
                .containsEntry("fine", "{\"title\":\"fine\"}")
                .doesNotContainKeys("old-deep", "old-abyss");

        // A conflict with such a record is still reported, without its payload.
        long version = client.edits.record(ALICE, "old-deep").orElseThrow().version();
        TestClient.Resp conflict = http.push(
                "alice",
                "course_sync",
                UUID.randomUUID().toString(),
                "{\"changes\":[{\"changeId\":\"c1\",\"id\":\"old-deep\",\"baseVersion\":" + (version - 1)
                        + ",\"deleted\":false,\"payload\":{}}]}");
        assertThat(conflict.status()).as(conflict.body()).isEqualTo(200);
        JsonNode result = conflict.json().path("results").get(0);
        assertThat(result.path("status").asText()).isEqualTo("conflict");
        assertThat(result.path("serverPayload").isNull()).isTrue();
        assertThat(result.path("serverPayloadWithheld").asText()).contains("nests more than 256 levels deep");
    }

    /** The field case: a deep edit among ordinary ones sets only itself aside, and later edits are sent. */
    @Test
    void oneEntryBeyondTheLimitsAmongGoodOnesIsSetAsideWithItsReasonAndLaterEditsAreSent() throws Exception {
        String first = client.edits.addEdit(ALICE, "first", "{\"n\":1}", false);
        String deep = insertRaw("deep", nested(999));
        String small = client.edits.addEdit(ALICE, "small", "{\"theme\":\"dark\"}", false);

        RunResult r = client.sync(ALICE, TaskSource.MANUAL);

        assertThat(r.status()).as(r.message().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(client.edits.outbox(ALICE))
                .extracting(JdbcLocalEdits.OutboxItem::changeId)
                .containsExactly(deep);
        assertThat(item(deep).rejectedReason().orElseThrow())
                .contains("record 'deep'")
                .contains("nests more than 256");
        assertThat(pulledByAFreshClient()).containsKeys("first", "small").doesNotContainKey("deep");

        String later = client.edits.addEdit(ALICE, "small", "{\"theme\":\"light\"}", false);
        assertThat(client.sync(ALICE, TaskSource.MANUAL).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(pulledByAFreshClient()).containsEntry("small", "{\"theme\":\"light\"}");
        assertThat(client.edits.discardSetAside(ALICE, deep)).isTrue();
        assertThat(client.edits.outbox(ALICE)).isEmpty();
        assertThat(List.of(first, small, later)).doesNotHaveDuplicates();
    }

    static String change(String id, String payload) {
        return changeWithId("\"" + id + "\"", payload);
    }

    static String changeWithId(String idJson, String payload) {
        return "{\"changeId\":\"" + UUID.randomUUID() + "\",\"id\":" + idJson + ",\"baseVersion\":0,\"deleted\":false,"
                + "\"payload\":" + payload + "}";
    }

    /** Overwrites a record's stored payload in the server's database, keeping its version and position. */
    void storeOnServer(String id, String payload) throws Exception {
        try (Connection c = server.database().connection();
                PreparedStatement ps = c.prepareStatement("UPDATE sync_records SET payload = ? WHERE user_id = 'alice'"
                        + " AND scope = 'course_sync' AND record_id = ?")) {
            ps.setString(1, payload);
            ps.setString(2, id);
            assertThat(ps.executeUpdate()).isEqualTo(1);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }
}
