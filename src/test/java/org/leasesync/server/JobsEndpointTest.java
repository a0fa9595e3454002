package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.leasesync.server.jobs.JobSettings;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.testing.MutableClock;

/**
 * {@code GET /v1/admin/jobs} and {@code POST /v1/admin/jobs/{name}/run} on one server (H2): the
 * view, authorisation, errors, a manual run and a join; pushes no longer delete expired keys, the
 * job does.
 */
class JobsEndpointTest extends ServerTestBase {

    final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));

    @Override
    protected ServerConfig config() {
        return ServerConfig.defaults()
                .withClock(clock)
                .withAudit(true)
                .withJobs(JobSettings.defaults()
                        .withScheduled(false)
                        .withBatchSize(2)
                        .withInterval(StandardJobs.PRUNE_AUDIT, Duration.ofMinutes(5))
                        .withPauseAfterFirstBatch(Set.of(StandardJobs.PRUNE_AUDIT)));
    }

    @Test
    void theViewListsEveryJobWithItsScheduleLeaseCheckpointAndRuns() throws Exception {
        TestClient.Resp r = client.adminJobs();
        assertThat(r.status()).isEqualTo(200);
        JsonNode body = r.json();
        assertThat(body.get("instanceId").asText()).isEqualTo(server.instanceId());
        assertThat(body.get("scheduled").asBoolean()).isFalse();
        assertThat(body.get("leaseTtlMs").asLong()).isEqualTo(15_000);
        assertThat(body.get("jobs"))
                .extracting(j -> j.get("name").asText())
                .containsExactlyElementsOf(StandardJobs.NAMES);
        JsonNode expire = JobsTestSupport.job(client, StandardJobs.EXPIRE_IDEMPOTENCY_KEYS);
        assertThat(expire.get("interval").asText())
                .as("--jobs off: none runs by schedule")
                .isEqualTo("off");
        assertThat(expire.get("lease").isNull()).as("never granted").isTrue();
        assertThat(expire.get("checkpoint").isNull()).isTrue();
        assertThat(expire.get("lastRuns")).isEmpty();

        JsonNode run = JobsTestSupport.runAndAwait(client, StandardJobs.RELEASE_STALE_CLAIMS);
        assertThat(run.get("instanceId").asText()).isEqualTo(server.instanceId());
        assertThat(run.get("trigger").asText()).isEqualTo("manual");
        assertThat(run.get("epoch").asLong()).isEqualTo(1);
        assertThat(run.get("startedAt").asText()).isEqualTo("2026-11-30T10:00:00Z");
        assertThat(run.get("endedAt").asText()).isEqualTo("2026-11-30T10:00:00Z");
        assertThat(run.get("processed").asLong()).isZero();
        JsonNode after = JobsTestSupport.job(client, StandardJobs.RELEASE_STALE_CLAIMS);
        assertThat(after.get("lease").get("held").asBoolean()).isFalse();
        assertThat(after.get("lease").get("epoch").asLong()).isEqualTo(1);
    }

    @Test
    void everyFinishedRunIsTimedInTheMetricsByJobAndResult() throws Exception {
        JobsTestSupport.runAndAwait(client, StandardJobs.RELEASE_STALE_CLAIMS);
        JobsTestSupport.runAndAwait(client, StandardJobs.RELEASE_STALE_CLAIMS);
        TestClient.Resp r = client.get("/metrics", null, Map.of());
        assertThat(r.status()).isEqualTo(200);
        Exposition m = new Exposition(r.body());
        assertThat(m.value(
                        "leasesync_server_jobs_seconds_count",
                        "job",
                        StandardJobs.RELEASE_STALE_CLAIMS,
                        "result",
                        "ok"))
                .isEqualTo(2);
        assertThat(m.find("leasesync_server_jobs_seconds_count"))
                .as("no other job ran")
                .hasSize(1);
    }

    @Test
    void onlyTheAdminMayReadOrRunJobsAndBadRequestsSayWhatIsWrong() throws Exception {
        String alice = server.tokenFor("alice");
        assertThat(client.get("/v1/admin/jobs", alice, Map.of()).status()).isEqualTo(403);
        assertThat(client.get("/v1/admin/jobs", null, Map.of()).status()).isEqualTo(401);
        assertThat(client.post("/v1/admin/jobs/prune-audit/run", alice, Map.of(), "")
                        .status())
                .isEqualTo(403);

        TestClient.Resp unknown = client.runJob("vacuum");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().get("code").asText()).isEqualTo("unknown_job");
        assertThat(unknown.json().get("message").asText()).contains("'vacuum'").contains(StandardJobs.PRUNE_AUDIT);
        TestClient.Resp wrongMethod = client.get("/v1/admin/jobs/prune-audit/run", server.adminToken(), Map.of());
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.header("Allow")).isEqualTo("POST");
        TestClient.Resp badRuns = client.get("/v1/admin/jobs?runs=0", server.adminToken(), Map.of());
        assertThat(badRuns.status()).isEqualTo(400);
        assertThat(badRuns.json().get("message").asText()).contains("runs must be an integer 1..100");
        assertThat(client.get("/v1/admin/jobs/prune-audit", server.adminToken(), Map.of())
                        .status())
                .isEqualTo(404);
    }

    @Test
    void aSecondRunRequestJoinsTheRunningOneInsteadOfStartingAnother() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(client.pull("alice", "backup", null).status()).isEqualTo(200); // three audit rows
        }
        clock.advance(Duration.ofDays(8));
        TestClient.Resp started = client.runJob(StandardJobs.PRUNE_AUDIT);
        assertThat(started.status()).isEqualTo(202);
        JsonNode s = started.json();
        assertThat(s.get("outcome").asText()).isEqualTo("started");
        assertThat(s.get("trigger").asText()).isEqualTo("manual");
        assertThat(s.get("instanceId").asText()).isEqualTo(server.instanceId());
        long runId = s.get("runId").asLong();
        // The run pauses after its first batch (test switch): it holds the job meanwhile.
        JobsTestSupport.awaitJob(
                client,
                StandardJobs.PRUNE_AUDIT,
                j -> !j.get("checkpoint").isNull()
                        && j.get("checkpoint").get("processed").asLong() == 2);

        TestClient.Resp joined = client.runJob(StandardJobs.PRUNE_AUDIT);
        assertThat(joined.status()).isEqualTo(200);
        JsonNode j = joined.json();
        assertThat(j.get("outcome").asText()).isEqualTo("joined");
        assertThat(j.get("holder").get("instanceId").asText()).isEqualTo(server.instanceId());
        assertThat(j.get("holder").get("epoch").asLong())
                .isEqualTo(s.get("epoch").asLong());
        assertThat(j.get("run").get("runId").asLong()).isEqualTo(runId);
        assertThat(j.get("run").get("result").asText()).isEqualTo("running");
        JsonNode view = JobsTestSupport.job(client, StandardJobs.PRUNE_AUDIT);
        assertThat(view.get("interval").asText()).isEqualTo("off");
        assertThat(view.get("lease").get("held").asBoolean()).isTrue();
        assertThat(view.get("lease").get("instanceId").asText()).isEqualTo(server.instanceId());
        assertThat(view.get("lastRuns")).hasSize(1);
    }

    @Test
    void pushesLeaveExpiredKeysAloneAndTheJobDeletesThem() throws Exception {
        assertThat(client.push("alice", "backup", "old-key", TestClient.oneChange("c1", "r1", 0, "{}"))
                        .status())
                .isEqualTo(200);
        clock.advance(Duration.ofHours(25));
        assertThat(client.pushStatus("alice", "backup", "old-key")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("unknown");
        // A push used to delete every expired key on its way: now the expired record is still there for the job.
        assertThat(client.push("alice", "backup", "new-key", TestClient.oneChange("c2", "r2", 0, "{}"))
                        .status())
                .isEqualTo(200);
        JsonNode run = JobsTestSupport.runAndAwait(client, StandardJobs.EXPIRE_IDEMPOTENCY_KEYS);
        assertThat(run.get("processed").asLong()).isEqualTo(1);
        assertThat(client.pushStatus("alice", "backup", "new-key")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("completed");
        assertThat(JobsTestSupport.runAndAwait(client, StandardJobs.EXPIRE_IDEMPOTENCY_KEYS)
                        .get("processed")
                        .asLong())
                .isZero();
        List<String> triggers = List.of("manual", "manual");
        assertThat(JobsTestSupport.job(client, StandardJobs.EXPIRE_IDEMPOTENCY_KEYS)
                        .get("lastRuns"))
                .extracting(r -> r.get("trigger").asText())
                .containsExactlyElementsOf(triggers);
    }
}
