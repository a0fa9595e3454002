package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.leasesync.server.store.ServerStats;

class PushTest extends ServerTestBase {

    private JsonNode record(String user, String scope, String id) throws Exception {
        for (JsonNode c : client.pull(user, scope, "limit=1000").json().get("changes")) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        return null;
    }

    @Test
    void appliesAChangeBasedOnTheCurrentVersion() throws Exception {
        String changeId = TestClient.newId();
        TestClient.Resp r = client.push(
                "alice",
                "course_sync",
                "k1",
                TestClient.oneChange(changeId, "course-2", 1, "{\"title\":\"Statistics\",\"progress\":0.9}"));

        assertThat(r.status()).isEqualTo(200);
        JsonNode result = r.json().get("results").get(0);
        assertThat(result.get("changeId").asText()).isEqualTo(changeId);
        assertThat(result.get("id").asText()).isEqualTo("course-2");
        assertThat(result.get("status").asText()).isEqualTo("applied");
        assertThat(result.get("version").asLong()).isEqualTo(2);
        assertThat(result.get("duplicate").asBoolean()).isFalse();
        assertThat(r.header("Idempotent-Replayed")).isNull();
        assertThat(record("alice", "course_sync", "course-2")
                        .get("payload")
                        .get("progress")
                        .decimalValue())
                .isEqualByComparingTo("0.9");
        assertThat(server.stats().changesApplied()).isEqualTo(1);
    }

    @Test
    void createsNewRecordsWithBaseVersionZero() throws Exception {
        TestClient.Resp r = client.push(
                "alice",
                "course_sync",
                "k-new",
                TestClient.oneChange(TestClient.newId(), "course-new", 0, "{\"title\":\"Topology\"}"));

        assertThat(r.json().get("results").get(0).get("version").asLong()).isEqualTo(1);
        assertThat(record("alice", "course_sync", "course-new")
                        .get("payload")
                        .get("title")
                        .asText())
                .isEqualTo("Topology");
    }

    @Test
    void reportsAConflictAndOverwritesNothingWhenTheServerVersionIsNewer() throws Exception {
        client.push(
                "alice",
                "course_sync",
                "k-a",
                TestClient.oneChange(TestClient.newId(), "course-1", 1, "{\"title\":\"Server wins\"}"));

        TestClient.Resp r = client.push(
                "alice",
                "course_sync",
                "k-b",
                TestClient.oneChange(TestClient.newId(), "course-1", 1, "{\"title\":\"Stale edit\"}"));

        JsonNode result = r.json().get("results").get(0);
        assertThat(r.status()).isEqualTo(200);
        assertThat(result.get("status").asText()).isEqualTo("conflict");
        assertThat(result.get("serverVersion").asLong()).isEqualTo(2);
        assertThat(result.get("serverDeleted").asBoolean()).isFalse();
        assertThat(result.get("serverPayload").get("title").asText()).isEqualTo("Server wins");
        assertThat(result.has("version")).isFalse();
        JsonNode stored = record("alice", "course_sync", "course-1");
        assertThat(stored.get("version").asLong()).isEqualTo(2);
        assertThat(stored.get("payload").get("title").asText()).isEqualTo("Server wins");
    }

    @Test
    void creatingARecordThatExistsIsAConflict() throws Exception {
        JsonNode result = client.push(
                        "bob",
                        "backup",
                        "k",
                        TestClient.oneChange(TestClient.newId(), "settings", 0, "{\"theme\":\"light\"}"))
                .json()
                .get("results")
                .get(0);

        assertThat(result.get("status").asText()).isEqualTo("conflict");
        assertThat(result.get("serverPayload").get("theme").asText()).isEqualTo("dark");
    }

    @Test
    void aBatchMixesAppliedAndConflictInRequestOrder() throws Exception {
        String body = TestClient.body(
                TestClient.change("c1", "msg-1", 1, "{\"read\":true}"),
                TestClient.change("c2", "msg-2", 7, "{\"read\":true}"),
                TestClient.change("c3", "msg-1", 2, "{\"read\":false}"));

        JsonNode results =
                client.push("bob", "message_sync", "k-batch", body).json().get("results");

        assertThat(results).hasSize(3);
        assertThat(results.get(0).get("status").asText()).isEqualTo("applied");
        assertThat(results.get(1).get("status").asText()).isEqualTo("conflict");
        assertThat(results.get(1).get("serverVersion").asLong()).isEqualTo(1);
        assertThat(results.get(2).get("status").asText()).isEqualTo("applied");
        assertThat(results.get(2).get("version").asLong()).isEqualTo(3);
    }

    @Test
    void aChangeIdAppliedUnderAnotherKeyIsReportedAsDuplicateAndNotAppliedTwice() throws Exception {
        String changeId = TestClient.newId();
        client.push(
                "alice",
                "course_sync",
                "first-key",
                TestClient.oneChange(changeId, "course-3", 1, "{\"title\":\"Once\"}"));

        JsonNode result = client.push(
                        "alice",
                        "course_sync",
                        "second-key",
                        TestClient.oneChange(changeId, "course-3", 1, "{\"title\":\"Once\"}"))
                .json()
                .get("results")
                .get(0);

        assertThat(result.get("status").asText()).isEqualTo("applied");
        assertThat(result.get("version").asLong()).isEqualTo(2);
        assertThat(result.get("duplicate").asBoolean()).isTrue();
        assertThat(record("alice", "course_sync", "course-3").get("version").asLong())
                .isEqualTo(2);
        assertThat(server.stats().appliedIn("alice", "course_sync")).containsEntry(changeId, 1);
    }

    @Test
    void missingIdempotencyKeyIs400() throws Exception {
        TestClient.Resp r = client.push(
                "alice", "course_sync", null, TestClient.oneChange(TestClient.newId(), "course-1", 1, "{}"));

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("code").asText()).isEqualTo("idempotency_key_required");
    }

    @Test
    void malformedJsonIs400NamingTheProblemWithoutAStackTrace() throws Exception {
        TestClient.Resp r = client.push("alice", "course_sync", "k-bad", "{\"changes\": [ {\"id\": ");

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).startsWith("application/json");
        assertThat(r.json().get("code").asText()).isEqualTo("bad_request");
        assertThat(r.json().get("message").asText()).contains("malformed JSON").contains("line 1");
        assertThat(r.body()).doesNotContain("at org.").doesNotContain("Exception");
    }

    @Test
    void invalidChangesAre400NamingTheEntryAndApplyNothing() throws Exception {
        String body = TestClient.body(TestClient.change("ok", "course-1", 1, "{\"title\":\"x\"}"))
                .replace("]}", ",{\"changeId\":\"c\",\"id\":\"course-2\",\"baseVersion\":-1,\"payload\":{}}]}");

        TestClient.Resp r = client.push("alice", "course_sync", "k-invalid", body);

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("message").asText()).contains("changes[1].baseVersion");
        assertThat(record("alice", "course_sync", "course-1").get("version").asLong())
                .isEqualTo(1);
        assertThat(client.pushStatus("alice", "course_sync", "k-invalid")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
    }

    @Test
    void bodiesOverFiveMebibytesAre413() throws Exception {
        String big = "{\"changes\":[],\"pad\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}";

        TestClient.Resp r = client.push("alice", "course_sync", "k-big", big);

        assertThat(r.status()).isEqualTo(413);
        assertThat(r.json().get("code").asText()).isEqualTo("payload_too_large");
    }

    @Test
    void concurrentPushesOfTheSameBaseVersionApplyExactlyOne() throws Exception {
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<TestClient.Resp>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String body = TestClient.oneChange(TestClient.newId(), "course-4", 1, "{\"title\":\"v" + i + "\"}");
                String key = "race-" + i;
                Callable<TestClient.Resp> call = () -> client.push("alice", "course_sync", key, body);
                futures.add(pool.submit(call));
            }
            int applied = 0;
            for (Future<TestClient.Resp> f : futures) {
                String status =
                        f.get().json().get("results").get(0).get("status").asText();
                applied += status.equals("applied") ? 1 : 0;
            }
            assertThat(applied).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(record("alice", "course_sync", "course-4").get("version").asLong())
                .isEqualTo(2);
    }

    @Test
    void concurrentPushesToDifferentRecordsAreAllSeenByCursorPulls() throws Exception {
        String cursor =
                client.pull("bob", "course_sync", null).json().get("nextCursor").asText();
        int n = 10;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<String> seen = new ArrayList<>();
        try {
            List<Future<TestClient.Resp>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String body = TestClient.oneChange(TestClient.newId(), "new-" + i, 0, "{\"n\":" + i + "}");
                String key = "par-" + i;
                futures.add(pool.submit(() -> client.push("bob", "course_sync", key, body)));
            }
            for (int round = 0; round < 200 && seen.size() < n; round++) {
                JsonNode page =
                        client.pull("bob", "course_sync", "since=" + cursor).json();
                page.get("changes").forEach(c -> seen.add(c.get("id").asText()));
                cursor = page.get("nextCursor").asText();
                if (futures.stream().allMatch(Future::isDone)
                        && page.get("changes").isEmpty()) {
                    break;
                }
            }
            for (Future<TestClient.Resp> f : futures) {
                assertThat(f.get().status()).isEqualTo(200);
            }
            JsonNode rest = client.pull("bob", "course_sync", "since=" + cursor).json();
            rest.get("changes").forEach(c -> seen.add(c.get("id").asText()));
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).doesNotHaveDuplicates().hasSize(n);
    }

    @Test
    void pushesAreCountedInStatsAndTheSyncRunIdIsAcceptedOnGets() throws Exception {
        client.push("alice", "course_sync", "k-s", TestClient.oneChange("s1", "course-1", 1, "{}"));
        TestClient.Resp get = client.get(
                TestClient.changesPath("alice", "course_sync"),
                server.tokenFor("alice"),
                Map.of("Sync-Run-Id", "run-1"));

        assertThat(get.status()).isEqualTo(200);
        ServerStats s = server.stats();
        assertThat(s.pushes()).isEqualTo(1);
        assertThat(s.requests()).isEqualTo(2);
        assertThat(s.changesApplied()).isEqualTo(1);
    }

    @Test
    void eachChangeIsDecidedAgainstTheStateTheSamePushsEarlierChangesLeft() throws Exception {
        // The push reads its change ids and records once and writes them as batches:
        // a record created and changed in one push, a change id repeated in it, and a conflict with a
        // version the push itself produced must come out as if each change were applied in turn.
        String body = TestClient.body(
                TestClient.change("n1", "fresh", 0, "{\"v\":1}"),
                TestClient.change("n2", "fresh", 1, "{\"v\":2}"),
                TestClient.change("n1", "fresh", 0, "{\"v\":1}"),
                TestClient.change("n3", "fresh", 1, "{\"v\":\"stale\"}"),
                TestClient.change("n4", "msg-1", 1, "{\"read\":true}"),
                TestClient.change("n5", "msg-1", 2, "{\"read\":false}"));

        JsonNode results =
                client.push("bob", "message_sync", "k-inpush", body).json().get("results");

        assertThat(results).hasSize(6);
        assertThat(results.get(0).get("version").asLong()).isEqualTo(1);
        assertThat(results.get(1).get("status").asText()).isEqualTo("applied");
        assertThat(results.get(1).get("version").asLong()).isEqualTo(2);
        assertThat(results.get(2).get("status").asText()).isEqualTo("applied");
        assertThat(results.get(2).get("duplicate").asBoolean()).isTrue();
        assertThat(results.get(2).get("version").asLong()).isEqualTo(1);
        assertThat(results.get(3).get("status").asText()).isEqualTo("conflict");
        assertThat(results.get(3).get("serverVersion").asLong()).isEqualTo(2);
        assertThat(results.get(3).get("serverPayload").get("v").asInt()).isEqualTo(2);
        assertThat(results.get(5).get("version").asLong()).isEqualTo(3);
        JsonNode fresh = record("bob", "message_sync", "fresh");
        assertThat(fresh.get("version").asLong()).isEqualTo(2);
        assertThat(fresh.get("payload").get("v").asInt()).isEqualTo(2);
        assertThat(record("bob", "message_sync", "msg-1")
                        .get("payload")
                        .get("read")
                        .asBoolean())
                .isFalse();
        assertThat(server.stats().appliedIn("bob", "message_sync")).containsOnlyKeys("n1", "n2", "n4", "n5");
        // the applied changes of the push got seqs 1..4 after the seeded ones: one pull answers each record once
        List<String> ids = new ArrayList<>();
        client.pull("bob", "message_sync", "limit=1000")
                .json()
                .get("changes")
                .forEach(c -> ids.add(c.get("id").asText()));
        assertThat(ids).doesNotHaveDuplicates().contains("fresh", "msg-1");
    }

    @Test
    void aPushOfAThousandChangesReadsAndWritesThemAllAcrossItsIdLists() throws Exception {
        // 700 applied first; then 1,000 changes: those 700 again (duplicates) and 300 new records
        // (the protocol's largest push).
        List<com.fasterxml.jackson.databind.node.ObjectNode> first = new ArrayList<>();
        for (int i = 0; i < 700; i++) {
            first.add(TestClient.change("c-" + i, "bulk-" + i, 0, "{\"n\":" + i + "}"));
        }
        client.push(
                "alice",
                "backup",
                "k-first",
                TestClient.body(first.toArray(new com.fasterxml.jackson.databind.node.ObjectNode[0])));
        List<com.fasterxml.jackson.databind.node.ObjectNode> all = new ArrayList<>(first);
        for (int i = 700; i < 1000; i++) {
            all.add(TestClient.change("c-" + i, "bulk-" + i, 0, "{\"n\":" + i + "}"));
        }

        JsonNode results = client.push(
                        "alice",
                        "backup",
                        "k-all",
                        TestClient.body(all.toArray(new com.fasterxml.jackson.databind.node.ObjectNode[0])))
                .json()
                .get("results");

        assertThat(results).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(results.get(i).get("status").asText()).as("change %d", i).isEqualTo("applied");
            assertThat(results.get(i).get("duplicate").asBoolean())
                    .as("change %d", i)
                    .isEqualTo(i < 700);
            assertThat(results.get(i).get("version").asLong())
                    .as("change %d", i)
                    .isEqualTo(1);
        }
        assertThat(server.stats().appliedIn("alice", "backup")).hasSize(1000);
        java.util.Map<String, Integer> pulled = new java.util.HashMap<>();
        String cursor = null;
        boolean more = true;
        while (more) {
            JsonNode page = client.pull(
                            "alice",
                            "backup",
                            "limit=1000"
                                    + (cursor == null ? "" : "&since=" + java.net.URLEncoder.encode(cursor, "UTF-8")))
                    .json();
            page.get("changes").forEach(c -> {
                if (c.get("id").asText().startsWith("bulk-")) {
                    pulled.merge(c.get("id").asText(), c.get("payload").get("n").asInt(), (a, b) -> -1);
                }
            });
            cursor = page.get("nextCursor").asText();
            more = page.get("hasMore").asBoolean();
        }
        assertThat(pulled)
                .hasSize(1000)
                .containsEntry("bulk-0", 0)
                .containsEntry("bulk-999", 999)
                .doesNotContainValue(-1);
    }
}
