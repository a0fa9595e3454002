package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PullTest extends ServerTestBase {

    @Test
    void pullsSeededDemoDataFromTheBeginning() throws Exception {
        TestClient.Resp r = client.pull("alice", "course_sync", null);

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("application/json; charset=utf-8");
        JsonNode body = r.json();
        assertThat(body.get("hasMore").asBoolean()).isFalse();
        assertThat(body.get("changes")).hasSizeBetween(4, 6);
        JsonNode first = body.get("changes").get(0);
        assertThat(first.get("id").asText()).isEqualTo("course-1");
        assertThat(first.get("version").asLong()).isEqualTo(1);
        assertThat(first.get("deleted").asBoolean()).isFalse();
        assertThat(first.get("payload").get("title").asText()).isEqualTo("Linear Algebra");
        assertThat(first.get("payload").get("progress").decimalValue()).isEqualByComparingTo("0.42");
        assertThat(first.get("serverTime").asText()).endsWith("Z");
    }

    @Test
    void aliceAndBobHaveDifferentDataInEveryScope() throws Exception {
        for (String scope : List.of("course_sync", "message_sync", "backup")) {
            JsonNode a = client.pull("alice", scope, null).json().get("changes");
            JsonNode b = client.pull("bob", scope, null).json().get("changes");
            assertThat(a).isNotEmpty();
            assertThat(b).isNotEmpty();
            assertThat(a.toString()).isNotEqualTo(b.toString());
        }
        JsonNode settings = client.pull("alice", "backup", null)
                .json()
                .get("changes")
                .get(0)
                .get("payload");
        assertThat(settings.get("theme").asText()).isEqualTo("light");
        assertThat(settings.get("notifications").asBoolean()).isTrue();
    }

    @Test
    void pagesWithTheCursorUntilNothingIsLeft() throws Exception {
        List<String> ids = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        boolean more = true;
        while (more) {
            JsonNode page = client.pull("bob", "message_sync", "limit=2" + (cursor == null ? "" : "&since=" + cursor))
                    .json();
            assertThat(page.get("changes").size()).isLessThanOrEqualTo(2);
            page.get("changes").forEach(c -> ids.add(c.get("id").asText()));
            cursor = page.get("nextCursor").asText();
            more = page.get("hasMore").asBoolean();
            pages++;
        }
        assertThat(ids).doesNotHaveDuplicates().hasSize(5);
        assertThat(pages).isEqualTo(3);

        JsonNode empty = client.pull("bob", "message_sync", "since=" + cursor).json();
        assertThat(empty.get("changes")).isEmpty();
        assertThat(empty.get("nextCursor").asText()).isEqualTo(cursor);
        assertThat(empty.get("hasMore").asBoolean()).isFalse();
    }

    @Test
    void aRecordChangedSeveralTimesAppearsOnceWithItsLatestState() throws Exception {
        String cursor = client.pull("alice", "course_sync", null)
                .json()
                .get("nextCursor")
                .asText();
        String id = "course-1";
        for (int base = 1; base <= 3; base++) {
            TestClient.Resp r = client.push(
                    "alice",
                    "course_sync",
                    TestClient.newId(),
                    TestClient.oneChange(TestClient.newId(), id, base, "{\"title\":\"LA\",\"progress\":" + base + "}"));
            assertThat(r.json().get("results").get(0).get("status").asText()).isEqualTo("applied");
        }

        JsonNode changes =
                client.pull("alice", "course_sync", "since=" + cursor).json().get("changes");

        assertThat(changes).hasSize(1);
        assertThat(changes.get(0).get("version").asLong()).isEqualTo(4);
        assertThat(changes.get(0).get("payload").get("progress").asInt()).isEqualTo(3);
    }

    @Test
    void aDeletedRecordIsATombstoneWithNullPayload() throws Exception {
        String cursor = client.pull("alice", "message_sync", null)
                .json()
                .get("nextCursor")
                .asText();
        String body = "{\"changes\":[{\"changeId\":\"del-1\",\"id\":\"msg-1\",\"baseVersion\":1,\"deleted\":true}]}";
        assertThat(client.push("alice", "message_sync", "k-del", body).status()).isEqualTo(200);

        JsonNode c = client.pull("alice", "message_sync", "since=" + cursor)
                .json()
                .get("changes")
                .get(0);

        assertThat(c.get("deleted").asBoolean()).isTrue();
        assertThat(c.get("payload").isNull()).isTrue();
        assertThat(c.get("version").asLong()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"limit=0", "limit=1001", "limit=-5", "limit=ten", "since=abc", "since=-1", "since=01"})
    void badQueryValuesAre400WithAJsonError(String query) throws Exception {
        TestClient.Resp r = client.pull("alice", "course_sync", query);

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("code").asText()).isEqualTo("bad_request");
        assertThat(r.json().get("message").asText()).isNotBlank();
    }

    @Test
    void unknownScopeIs404UnknownScope() throws Exception {
        TestClient.Resp r = client.pull("alice", "photos", null);

        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json().get("code").asText()).isEqualTo("unknown_scope");
    }

    @Test
    void unknownPathIs404AndWrongMethodIs405() throws Exception {
        TestClient.Resp notFound = client.get("/v2/nothing", server.tokenFor("alice"), java.util.Map.of());
        assertThat(notFound.status()).isEqualTo(404);
        assertThat(notFound.json().get("code").asText()).isEqualTo("not_found");

        TestClient.Resp wrong =
                client.put(TestClient.changesPath("alice", "course_sync"), server.tokenFor("alice"), "{}");
        assertThat(wrong.status()).isEqualTo(405);
        assertThat(wrong.json().get("code").asText()).isEqualTo("method_not_allowed");
        assertThat(wrong.header("Allow")).contains("GET").contains("POST");
    }

    @Test
    void usersCreatedByTokenForStartEmpty() throws Exception {
        JsonNode body = client.pull("carol", "course_sync", null).json();

        assertThat(body.get("changes")).isEmpty();
        assertThat(body.get("nextCursor").asText()).matches("[0-9a-f]{12}:0");
    }
}
