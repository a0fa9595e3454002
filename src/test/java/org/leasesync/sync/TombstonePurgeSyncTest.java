package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.store.JdbcLocalEdits;
import org.leasesync.store.LocalStore;
import org.leasesync.testing.ClientStack;
import org.leasesync.testing.MutableClock;

/**
 * The real client across a tombstone purge: a device that was away while another one deleted a
 * record, and whose cursor is from before the purge, gets {@code invalid_cursor}, pulls everything
 * again in small pages (never refused midway), ends up without the deleted record, and keeps and
 * pushes its own pending edit. No client misses a deletion.
 */
class TombstonePurgeSyncTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");

    final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z")); // the server's clock
    final ReferenceServer server = ReferenceServer.start(ServerConfig.defaults()
            .withClock(clock)
            .withJobs(JobSettings.defaults().withScheduled(false)));
    final LocalStore storeA = LocalStore.openInMemory();
    final LocalStore storeB = LocalStore.openInMemory();
    final Map<String, String> tokens = Map.of("alice", server.tokenFor("alice"));
    final SyncSettings smallPages = new SyncSettings(2, 500, 6, Duration.ofMillis(200), Duration.ofHours(24));
    final ClientStack deviceA =
            new ClientStack(storeA, server.baseUrl(), tokens, TimeSource.system(), smallPages, HttpSettings.DEFAULT);
    final ClientStack deviceB = new ClientStack(storeB, server.baseUrl(), tokens);

    @AfterEach
    void tearDown() {
        deviceA.close();
        deviceB.close();
        storeA.close();
        storeB.close();
        server.close();
    }

    void synced(ClientStack device) throws Exception {
        RunResult r = device.sync(KEY, TaskSource.MANUAL);
        assertThat(r.status()).as("%s", r).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void aDeviceWhoseCursorIsOlderThanThePurgeResyncsWithoutTheDeletedRecordAndKeepsItsEdit() throws Exception {
        deviceB.edits.addEdit(KEY, "short-lived", "{\"title\":\"Tmp\"}", false);
        synced(deviceB);
        synced(deviceA);
        assertThat(deviceA.edits.record(KEY, "short-lived")).isPresent();

        // Device A goes away; B deletes the record; 31 days later its tombstone is purged.
        deviceB.edits.addEdit(KEY, "short-lived", "{}", true);
        synced(deviceB);
        clock.advance(Duration.ofDays(31));
        runPurge();

        // A comes back with an edit of its own, made while it was away.
        String courseId = deviceA.edits.records(KEY).stream()
                .filter(r -> !r.id().equals("short-lived"))
                .findFirst()
                .orElseThrow()
                .id();
        deviceA.edits.addEdit(KEY, courseId, "{\"title\":\"Edited on A\"}", false);
        synced(deviceA);

        assertThat(deviceA.edits.record(KEY, "short-lived"))
                .as("the purged deletion reached A")
                .isEmpty();
        assertThat(deviceA.edits.pendingCount(KEY))
                .as("A's edit was pushed, not lost")
                .isZero();
        assertThat(deviceA.edits.record(KEY, courseId).orElseThrow().payloadJson())
                .contains("Edited on A");
        assertThat(deviceA.edits.records(KEY))
                .extracting(JdbcLocalEdits.LocalRecord::id)
                .containsExactlyInAnyOrderElementsOf(deviceB.edits.records(KEY).stream()
                        .filter(r -> !r.deleted())
                        .map(JdbcLocalEdits.LocalRecord::id)
                        .toList());
        synced(deviceB);
        assertThat(deviceB.edits.record(KEY, courseId).orElseThrow().payloadJson())
                .contains("Edited on A");
    }

    private void runPurge() throws Exception {
        Request run = new Request.Builder()
                .url(server.baseUrl() + "/v1/admin/jobs/" + StandardJobs.PURGE_TOMBSTONES + "/run")
                .header("Authorization", "Bearer " + server.adminToken())
                .post(RequestBody.create(new byte[0]))
                .build();
        try (Response r = ClientStack.HTTP.newCall(run).execute()) {
            assertThat(r.code()).isEqualTo(202);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Request view = new Request.Builder()
                    .url(server.baseUrl() + "/v1/admin/jobs")
                    .header("Authorization", "Bearer " + server.adminToken())
                    .build();
            try (Response r = ClientStack.HTTP.newCall(view).execute()) {
                String body = r.body().string();
                if (body.contains("\"name\":\"purge-tombstones\"")
                        && body.matches(
                                "(?s).*\"name\":\"purge-tombstones\".*?\"lastRuns\":\\[\\{[^]]*\"result\":\"ok\",\"processed\":1.*")) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("purge-tombstones did not finish with one tombstone purged within 30 s");
    }
}
