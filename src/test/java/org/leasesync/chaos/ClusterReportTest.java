package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.leasesync.server.jobs.JobResult;
import org.leasesync.server.jobs.JobRun;
import org.leasesync.server.jobs.JobRunner;
import org.leasesync.server.jobs.JobTrigger;

/**
 * The cluster summary: the chaos checker's findings under the cluster's counters — the server
 * accepting a lower fencing token counts as fencing_violations (not overlaps), a local write after a
 * newer grant as overlaps — and the job check: its violations, its note, and a job history it could
 * not see whole failing the run.
 */
class ClusterReportTest {

    private static final ClusterReport.Counts COUNTS = new ClusterReport.Counts(3, 20, 4, 7);

    private final List<JsonNode> events = new ArrayList<>();
    private final List<JsonNode> audit = new ArrayList<>();
    private List<String> outbox = List.of();
    private List<JobRun> jobRuns = List.of(jobRun(1, 100, "ls-s1/1/a", 1, 1_000, 1_010L, JobResult.OK));

    @Test
    void aCleanRunPrintsEveryCounterAtZero() {
        edit("c1");
        push(1, "alice", "course_sync", "client-a", 1, List.of("c1"));
        ClusterReport r = check();
        assertThat(r.passed()).isTrue();
        assertThat(r.summaryLine())
                .isEqualTo("instances=3 rounds=20 kills=4 partitions=7 duplicates=0 lost=0 overlaps=0 "
                        + "fencing_violations=0 job_double_runs=0");
        assertThat(r.jobNote()).startsWith("1 server job runs checked (prune-audit 1 runs");
        assertThat(r.jobHistoryGaps()).isEmpty();
    }

    @Test
    void aLowerTokenAcceptedAfterAHigherOneIsAFencingViolationNotAnOverlap() {
        push(1, "alice", "course_sync", "client-a", 5, List.of());
        push(2, "alice", "course_sync", "client-a", 4, List.of());
        ClusterReport r = check();
        assertThat(r.perCounter()).containsEntry("fencing_violations", 1).containsEntry("overlaps", 0);
        assertThat(r.summaryLine()).contains("fencing_violations=1");
        assertThat(r.violations().get(0).history()).anyMatch(l -> l.contains("\"seq\":2"));
    }

    @Test
    void tokensOfDifferentClientsOrScopesAreSeparateStreams() {
        push(1, "alice", "course_sync", "client-a", 5, List.of());
        push(2, "alice", "course_sync", "client-b", 1, List.of());
        push(3, "alice", "backup", "client-a", 1, List.of());
        assertThat(check().passed()).isTrue();
    }

    @Test
    void aLocalWriteAfterANewerGrantIsAnOverlap() {
        event("grant", 100).put("epoch", 1);
        event("grant", 200).put("epoch", 2);
        event("write", 215).put("epoch", 1).put("began", 210 * 1_000_000L).put("op", "confirm-push");
        ClusterReport r = check();
        assertThat(r.perCounter()).containsEntry("overlaps", 1).containsEntry("fencing_violations", 0);
    }

    @Test
    void aChangeAppliedTwiceOnOneUserAndScopeIsADuplicate() {
        edit("c1");
        push(1, "alice", "course_sync", "client-a", 1, List.of("c1"));
        push(2, "alice", "course_sync", "client-a", 1, List.of("c1"));
        ClusterReport r = check();
        assertThat(r.perCounter()).containsEntry("duplicates", 1);
        assertThat(r.violations().get(0).what()).isEqualTo("change c1 of alice|course_sync was applied 2 times");
    }

    @Test
    void oneChangeIdAppliedOnceForAliceAndOnceForBobIsNoDuplicate() {
        edit("c1");
        push(1, "alice", "course_sync", "client-a", 1, List.of("c1"));
        push(2, "bob", "course_sync", "client-b", 1, List.of("c1"));
        ClusterReport r = check();
        assertThat(r.perCounter()).containsEntry("duplicates", 0).containsEntry("lost", 0);
        assertThat(r.passed()).isTrue();
    }

    @Test
    void anEditNeitherAppliedNorInTheOutboxIsLostAndOneInTheOutboxIsNot() {
        edit("c1");
        edit("c2");
        outbox = List.of("c2");
        ClusterReport r = check();
        assertThat(r.perCounter()).containsEntry("lost", 1);
        assertThat(r.violations().get(0).what()).contains("c1").doesNotContain("c2");
    }

    @Test
    void aJobDoubleRunCountsInTheSummary() {
        jobRuns = List.of(
                jobRun(1, 100, "ls-s1/1/a", 1, 1_000, 1_010L, JobResult.OK),
                jobRun(2, 100, "ls-s2/1/b", 2, 2_000, 2_010L, JobResult.OK));
        ClusterReport r = check();
        assertThat(r.summaryLine()).endsWith("job_double_runs=1");
        assertThat(r.passed()).isFalse();
        assertThat(r.jobNote()).startsWith("2 server job runs checked");
    }

    @Test
    void aJobHistoryTheServerMayHaveCutFailsTheRunThoughEveryCounterIsZero() {
        List<JobRun> many = new ArrayList<>();
        for (int i = 1; i <= JobRunner.KEEP_RUNS; i++) {
            many.add(jobRun(i, i, "ls-s1/1/a", i, i * 1_000L, i * 1_000L + 5, JobResult.OK));
        }
        jobRuns = many;
        ClusterReport r = check();
        assertThat(r.perCounter().values()).containsOnly(0);
        assertThat(r.jobHistoryGaps()).singleElement().asString().startsWith("prune-audit has 100 runs recorded");
        assertThat(r.passed()).isFalse();
    }

    @Test
    void aRunInWhichNoServerJobRanFailsTheJobCheckInsteadOfPassingIt() {
        jobRuns = List.of();
        ClusterReport r = check();
        assertThat(r.summaryLine()).endsWith("job_double_runs=0");
        assertThat(r.jobHistoryGaps()).containsExactly("no server job run was recorded: the job check checked nothing");
        assertThat(r.passed()).isFalse();
    }

    @Test
    void editsAndDeletionsKeptThroughAResyncAreNotLost() {
        // invalid_cursor: the device re-downloaded everything (its local records were replaced) and
        // kept its outbox; a deletion the server applied counts like any applied edit
        edit("c1");
        ((ObjectNode) events.get(events.size() - 1)).put("delete", true);
        edit("c2");
        event("write", 300).put("epoch", 1).put("began", 299 * 1_000_000L).put("op", "reset-for-resync");
        outbox = List.of("c2");
        push(1, "alice", "course_sync", "client-a", 1, List.of("c1"));
        ObjectNode refused = Journal.JSON
                .createObjectNode()
                .put("seq", 2)
                .put("pathUser", "alice")
                .put("authUser", "alice")
                .put("scope", "course_sync")
                .put("op", "pull")
                .put("clientId", "client-a")
                .put("fencingToken", 1)
                .put("status", 400)
                .put("code", "invalid_cursor");
        audit.add(refused);
        ClusterReport r = check();
        assertThat(r.violations()).isEmpty();
        assertThat(r.passed()).isTrue();
    }

    @Test
    void aDrainThatLeftAKeyUnsettledFailsTheRunThoughEveryCounterIsZero() {
        ClusterReport r = ClusterReport.check(
                evidence(),
                jobRuns,
                COUNTS,
                List.of(
                        "device-b bob|course_sync: needs_attention: a push was sent but its result could not be confirmed"));
        assertThat(r.perCounter().values()).containsOnly(0);
        assertThat(r.passed()).isFalse();
    }

    // ---- history building -----------------------------------------------------------------------

    private ClusterReport check() {
        return ClusterReport.check(evidence(), jobRuns, COUNTS, List.of());
    }

    private static JobRun jobRun(
            long id, long slot, String instance, long epoch, long startedAtMs, Long endedAtMs, JobResult result) {
        return new JobRun(
                id,
                "prune-audit",
                slot,
                JobTrigger.SCHEDULE,
                instance,
                "owner-" + instance,
                epoch,
                null,
                startedAtMs,
                endedAtMs,
                result,
                0,
                null);
    }

    private Evidence evidence() {
        events.sort(java.util.Comparator.comparingLong(x -> x.path("mono").asLong()));
        return new Evidence(
                events,
                audit,
                Map.of(
                        "device-a",
                        new Evidence.Device(
                                "client-a",
                                Map.of("alice|course_sync", java.util.Set.copyOf(outbox)),
                                1,
                                List.of(),
                                Map.of())),
                Map.of(),
                Duration.ofSeconds(3),
                Duration.ofSeconds(3));
    }

    private ObjectNode event(String type, long atMs) {
        ObjectNode e = Journal.JSON.createObjectNode();
        e.put("mono", atMs * 1_000_000L);
        e.put("pid", 11);
        e.put("type", type);
        e.put("device", "device-a");
        e.put("key", "alice|course_sync");
        events.add(e);
        return e;
    }

    private void edit(String changeId) {
        event("edit", 50 + events.size()).put("changeId", changeId).put("record", "r1");
    }

    private void push(long seq, String user, String scope, String client, long token, List<String> applied) {
        ObjectNode a = Journal.JSON.createObjectNode();
        a.put("seq", seq);
        a.put("pathUser", user);
        a.put("authUser", user);
        a.put("scope", scope);
        a.put("op", "push");
        a.put("clientId", client);
        a.put("fencingToken", token);
        a.put("status", 200);
        applied.forEach(a.putArray("applied")::add);
        a.withArray("applied");
        a.putArray("duplicates");
        a.putArray("conflicts");
        audit.add(a);
    }
}
