package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.SubmitResult;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;

/**
 * A server that never lets a run finish — a pull that always says "more" without
 * moving on, a push answered without results — kept the run, its renewed lease and its key for ever
 * (every later trigger joined it). Now the run ends as failed with the reason, keeping what it did.
 */
class EndlessServerTest {

    static final TaskKey ALICE = TaskKey.of("alice", "course_sync");

    final LocalStore store = LocalStore.openInMemory();
    MockWebServer web;
    ClientStack client;

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (web != null) {
            web.close();
        }
        store.close();
    }

    void serve(Function<RecordedRequest, MockResponse> answer) throws Exception {
        web = new MockWebServer();
        web.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest req) {
                return answer.apply(req);
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

    static MockResponse json(String body) {
        return new MockResponse.Builder()
                .code(200)
                .addHeader("Content-Type", "application/json")
                .body(body)
                .build();
    }

    static String page(String cursor, boolean more, String records) {
        return "{\"changes\":[" + records + "],\"nextCursor\":\"" + cursor + "\",\"hasMore\":" + more + "}";
    }

    void assertKeyIsFreeAndTheNextTriggerStarts() {
        assertThat(store.leases().read(ALICE).orElseThrow().isHeld()).isFalse();
        assertThat(client.coordinator.submit(ALICE, TaskSource.SCHEDULE)).isInstanceOf(SubmitResult.Started.class);
    }

    @Test
    void aPullThatReturnsTheSameCursorWithMoreToComeEndsTheRunKeepingWhatItPulled() throws Exception {
        serve(req -> json(page(
                "c1",
                true,
                "{\"id\":\"r1\",\"version\":1,\"deleted\":false,\"payload\":{\"t\":1},"
                        + "\"serverTime\":\"2026-11-30T10:00:00Z\"}")));
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.FAILED);
        assertThat(r.message()).contains("the sync server keeps answering that more changes follow without moving on");
        assertThat(client.edits.records(ALICE)).extracting(rec -> rec.id()).containsExactly("r1");
        assertThat(web.getRequestCount()).isEqualTo(2);
        assertKeyIsFreeAndTheNextTriggerStarts();
    }

    @Test
    void endlessEmptyPagesEndTheRunAfterAHundred() throws Exception {
        AtomicInteger n = new AtomicInteger();
        serve(req -> json(page("c" + n.incrementAndGet(), true, "")));
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.FAILED);
        assertThat(r.message().orElseThrow()).contains("keeps answering that more changes follow");
        assertThat(n.get()).isEqualTo(PullStage.MAX_EMPTY_PAGES_IN_A_ROW);
        assertKeyIsFreeAndTheNextTriggerStarts();
    }

    @Test
    void aPushAnsweredWithoutResultsEndsTheRunAndTheEditsStayInTheOutbox() throws Exception {
        AtomicInteger pushes = new AtomicInteger();
        serve(req -> {
            if (req.getMethod().equals("POST")) {
                pushes.incrementAndGet();
                return json("{\"results\":[]}");
            }
            return json(page("c1", false, ""));
        });
        client.edits.addEdit(ALICE, "a", "{\"n\":1}", false);
        client.edits.addEdit(ALICE, "b", "{\"n\":2}", false);
        RunResult r = client.sync(ALICE, TaskSource.MANUAL);
        assertThat(r.status()).isEqualTo(RunStatus.FAILED);
        assertThat(r.message().orElseThrow())
                .contains("the sync server answered without a result for 2 changes; they stay in the outbox");
        assertThat(pushes.get()).isEqualTo(1);
        assertThat(client.edits.pendingCount(ALICE)).isEqualTo(2);
        assertKeyIsFreeAndTheNextTriggerStarts();
    }
}
