package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.testing.MutableClock;

/**
 * The protocol after {@code purge-tombstones} (docs/protocol.md §4): a cursor from before the purge
 * and below its horizon gets {@code invalid_cursor}; a cursor that saw the deletions goes on; a pull
 * from the beginning pages through without being refused (its cursors carry the purge generation);
 * a record created again gets a version above the purged tombstone's. On H2 here, on PostgreSQL in
 * a subclass.
 */
class TombstonePurgeTest extends ServerTestBase {

    static final Instant START = Instant.parse("2026-11-30T10:00:00Z");
    static final String COURSES = "course_sync";
    final MutableClock clock = new MutableClock(START);

    @Override
    protected ServerConfig config() {
        return ServerConfig.defaults()
                .withClock(clock)
                .withJobs(JobSettings.defaults().withScheduled(false).withBatchSize(1));
    }

    /** Pulls every page from {@code since} (null = the beginning) with page size {@code limit}; returns the pages. */
    List<JsonNode> pullAll(String since, int limit) throws Exception {
        List<JsonNode> pages = new ArrayList<>();
        String cursor = since;
        for (int i = 0; i < 100; i++) {
            TestClient.Resp r =
                    client.pull("alice", COURSES, (cursor == null ? "" : "since=" + cursor + "&") + "limit=" + limit);
            assertThat(r.status())
                    .as("page %d from %s: %s", i, cursor, r.body())
                    .isEqualTo(200);
            pages.add(r.json());
            cursor = r.json().get("nextCursor").asText();
            if (!r.json().get("hasMore").asBoolean()) {
                return pages;
            }
        }
        throw new AssertionError("more than 100 pages");
    }

    static Map<String, JsonNode> records(List<JsonNode> pages) {
        Map<String, JsonNode> out = new HashMap<>();
        for (JsonNode p : pages) {
            p.get("changes").forEach(ch -> out.put(ch.get("id").asText(), ch));
        }
        return out;
    }

    static String last(List<JsonNode> pages) {
        return pages.get(pages.size() - 1).get("nextCursor").asText();
    }

    static long seq(String cursor) {
        return Long.parseLong(cursor.split(":")[1]);
    }

    /** The purge generation a cursor names (0 when it names none). */
    static long generation(String cursor) {
        String[] parts = cursor.split(":");
        return parts.length > 2 ? Long.parseLong(parts[2]) : 0;
    }

    /** The cursor with its generation part replaced ({@code DBID:SEQ:GEN:STAMP}). */
    static String withGeneration(String cursor, long generation) {
        String[] parts = cursor.split(":");
        return parts[0] + ":" + parts[1] + ":" + generation + ":" + parts[3];
    }

    @Test
    void cursorsFromBeforeThePurgeAreRefusedOthersGoOnAndARecreatedRecordLooksNewer() throws Exception {
        for (String id : List.of("gone-1", "gone-2", "kept")) {
            assertThat(client.push(
                                    "alice",
                                    COURSES,
                                    "create-" + id,
                                    TestClient.oneChange("c-" + id, id, 0, "{\"n\":1}"))
                            .status())
                    .isEqualTo(200);
        }
        String beforeDeletes = last(pullAll(null, 100));
        assertThat(client.push(
                                "alice",
                                COURSES,
                                "delete",
                                TestClient.body(
                                        TestClient.deletion("d-1", "gone-1", 1),
                                        TestClient.deletion("d-2", "gone-2", 1)))
                        .status())
                .isEqualTo(200);
        clock.advance(Duration.ofDays(10));
        assertThat(client.push("alice", COURSES, "late-delete", TestClient.body(TestClient.deletion("d-3", "kept", 1)))
                        .status())
                .isEqualTo(200);
        List<JsonNode> afterDeletes = pullAll(beforeDeletes, 100);
        String sawDeletes = last(afterDeletes);
        assertThat(records(afterDeletes)).containsOnlyKeys("gone-1", "gone-2", "kept");

        clock.advance(Duration.ofDays(25)); // gone-1, gone-2: 35 days old; kept's tombstone: 25
        JsonNode run = JobsTestSupport.runAndAwait(client, StandardJobs.PURGE_TOMBSTONES);
        assertThat(run.get("processed").asLong()).isEqualTo(2);
        assertThat(run.get("trigger").asText()).isEqualTo("manual");

        TestClient.Resp refused = client.pull("alice", COURSES, "since=" + beforeDeletes);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("code").asText()).isEqualTo("invalid_cursor");
        assertThat(refused.json().get("message").asText()).contains("pull again without 'since'");

        TestClient.Resp goesOn = client.pull("alice", COURSES, "since=" + sawDeletes);
        assertThat(goesOn.status()).isEqualTo(200);
        assertThat(goesOn.json().get("changes")).isEmpty();
        // Same position, now with the purge generation: two batches (batch size 1) purged in this
        // user+scope, each moving the generation up by a random step of at least 1.
        String next = goesOn.json().get("nextCursor").asText();
        assertThat(generation(sawDeletes)).isZero();
        assertThat(generation(next)).isGreaterThanOrEqualTo(2);
        assertThat(next).isEqualTo(withGeneration(sawDeletes, generation(next)));

        // From the beginning, two records a page: cursors below the horizon, issued after the purge, are fine.
        List<JsonNode> fresh = pullAll(null, 2);
        assertThat(fresh.size()).isGreaterThan(2);
        long horizon = seq(sawDeletes) - 1; // the later of the two purged tombstones
        assertThat(fresh.subList(0, fresh.size() - 1))
                .extracting(p -> seq(p.get("nextCursor").asText()))
                .anyMatch(s -> s < horizon);
        assertThat(records(fresh)).doesNotContainKeys("gone-1", "gone-2").containsKey("kept");
        assertThat(records(fresh).get("kept").get("deleted").asBoolean())
                .as("a young tombstone stays")
                .isTrue();

        // gone-1's tombstone had version 2: created again, it gets 3, so a client holding the tombstone takes it.
        TestClient.Resp again =
                client.push("alice", COURSES, "again", TestClient.oneChange("c-again", "gone-1", 0, "{}"));
        assertThat(again.json().get("results").get(0).get("version").asLong()).isEqualTo(3);
        TestClient.Resp basedOnTombstone =
                client.push("alice", COURSES, "on-tombstone", TestClient.oneChange("c-on", "gone-2", 2, "{}"));
        JsonNode conflict = basedOnTombstone.json().get("results").get(0);
        assertThat(conflict.get("status").asText()).isEqualTo("conflict");
        assertThat(conflict.get("serverVersion").asLong()).isZero();
        JsonNode seen = client.pull("alice", COURSES, "since=" + sawDeletes).json();
        assertThat(seen.get("changes"))
                .extracting(c -> c.get("id").asText() + "@" + c.get("version").asLong())
                .containsExactly("gone-1@3");
    }

    @Test
    void aCursorWithAGenerationThisServerNeverIssuedIsRefused() throws Exception {
        String cursor = last(pullAll(null, 100));
        TestClient.Resp future = client.pull("alice", COURSES, "since=" + withGeneration(cursor, 9));
        assertThat(future.status()).isEqualTo(400);
        assertThat(future.json().get("code").asText()).isEqualTo("invalid_cursor");
        String[] parts = cursor.split(":");
        TestClient.Resp zero = client.pull("alice", COURSES, "since=" + parts[0] + ":" + parts[1] + ":0");
        assertThat(zero.status()).isEqualTo(400);
        assertThat(zero.json().get("code").asText()).isEqualTo("bad_request");
    }

    @Test
    void aFencedPullChecksTheHorizonInsideItsTransaction() throws Exception {
        assertThat(client.push("alice", COURSES, "create", TestClient.oneChange("c-x", "x", 0, "{}"))
                        .status())
                .isEqualTo(200);
        String before = last(pullAll(null, 100));
        assertThat(client.push("alice", COURSES, "delete", TestClient.body(TestClient.deletion("d-x", "x", 1)))
                        .status())
                .isEqualTo(200);
        clock.advance(Duration.ofDays(31));
        assertThat(JobsTestSupport.runAndAwait(client, StandardJobs.PURGE_TOMBSTONES)
                        .get("processed")
                        .asLong())
                .isEqualTo(1);
        Map<String, String> fence = Map.of("Fencing-Token", "5", "Client-Id", "device-1");
        TestClient.Resp refused = client.get(
                TestClient.changesPath("alice", COURSES) + "?since=" + before, server.tokenFor("alice"), fence);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("code").asText()).isEqualTo("invalid_cursor");
        TestClient.Resp fresh = client.get(TestClient.changesPath("alice", COURSES), server.tokenFor("alice"), fence);
        assertThat(fresh.status()).isEqualTo(200);
        assertThat(generation(fresh.json().get("nextCursor").asText())).isBetween(1L, 1_000_000L);
    }
}
