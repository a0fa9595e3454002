package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * Pull pages are read with a streaming parser. A page that is cut short or malformed
 * ends the run with a clear reason and loses nothing: the pages before it stay applied with their
 * cursor, nothing of it is applied, and the next run asks again from the saved cursor.
 */
class MalformedPullPageTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    final LocalStore store = LocalStore.openInMemory();
    final List<String> asked = new CopyOnWriteArrayList<>();
    final AtomicBoolean broken = new AtomicBoolean(true);
    MockWebServer web;
    ClientStack client;

    static String rec(String id, int version) {
        return "{\"id\":\"" + id + "\",\"version\":" + version + ",\"deleted\":false,\"payload\":{\"v\":" + version
                + ",\"s\":\"x\"},\"serverTime\":\"2026-11-30T10:00:00Z\"}";
    }

    static final String PAGE_1 =
            "{\"changes\":[" + rec("r1", 1) + "," + rec("r2", 1) + "],\"nextCursor\":\"c1\",\"hasMore\":true}";
    static final String PAGE_2 =
            "{\"changes\":[" + rec("r3", 1) + "," + rec("r1", 2) + "],\"nextCursor\":\"c2\",\"hasMore\":false}";

    @BeforeEach
    void serve() throws Exception {
        web = new MockWebServer();
        web.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest req) {
                String since = req.getUrl().queryParameter("since");
                asked.add(since == null ? "" : since);
                String body = since == null ? PAGE_1 : PAGE_2;
                if (since != null && broken.get()) {
                    body = body.substring(0, body.length() - 30); // cut inside the last change
                }
                return new MockResponse.Builder()
                        .code(200)
                        .addHeader("Content-Type", "application/json")
                        .body(body)
                        .build();
            }
        });
        web.start();
        client = new ClientStack(
                store,
                web.url("/").toString(),
                Map.of("alice", "t"),
                TimeSource.system(),
                SyncSettings.DEFAULT,
                new HttpSettings(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5)));
    }

    @AfterEach
    void tearDown() {
        client.close();
        web.close();
        store.close();
    }

    @Test
    void aCutShortPageFailsTheRunClearlyKeepsTheEarlierPagesAndIsAskedForAgain() throws Exception {
        RunResult first = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(first.status()).isEqualTo(RunStatus.FAILED);
        assertThat(first.message().orElseThrow()).contains("the sync server sent an answer leasesync cannot read");
        assertThat(client.edits.records(ALICE))
                .extracting(r -> r.id() + "@" + r.version())
                .containsExactly("r1@1", "r2@1");
        assertThat(store.history().checkpoint(ALICE).orElseThrow().pullCursor()).contains("c1");
        assertThat(asked).containsExactly("", "c1"); // a malformed answer is not asked for again at once

        broken.set(false);
        RunResult second = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(second.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(asked).containsExactly("", "c1", "c1"); // resumed at the saved cursor, not from the start
        assertThat(client.edits.records(ALICE))
                .extracting(r -> r.id() + "@" + r.version() + " " + r.payloadJson())
                .containsExactly(
                        "r1@2 {\"v\":2,\"s\":\"x\"}", "r2@1 {\"v\":1,\"s\":\"x\"}", "r3@1 {\"v\":1,\"s\":\"x\"}");
    }
}
