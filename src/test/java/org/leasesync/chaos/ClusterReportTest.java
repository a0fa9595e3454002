package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The cluster summary: the chaos checker's findings under the cluster's counters — the server
 * accepting a lower fencing token counts as fencing_violations (not overlaps), a local write after a
 * newer grant as overlaps — and the job check's note.
 */
class ClusterReportTest {

    private static final ClusterReport.Counts COUNTS = new ClusterReport.Counts(3, 20, 4, 7);

    private final List<JsonNode> events = new ArrayList<>();
    private final List<JsonNode> audit = new ArrayList<>();
    private List<String> outbox = List.of();

    @Test
    void aCleanRunPrintsEveryCounterAtZero() {
        edit("c1");
        push(1, "alice", "course_sync", "client-a", 1, List.of("c1"));
        ClusterReport r = check();
        assertThat(r.passed()).isTrue();
        assertThat(r.summaryLine()).isEqualTo("instances=3 rounds=20 kills=4 partitions=7 duplicates=0 lost=0 overlaps=0 "
                + "fencing_violations=0 job_double_runs=0");
        assertThat(r.jobNote()).isEqualTo("no server jobs on this build");
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
    void anEditNeitherAppliedNorInTheOutboxIsLostAndOneInTheOutboxIsNot() {
        edit("c1");
        edit("c2");
        outbox = List.of("c2");
        ClusterReport r = check();
        assertThat(r.perCounter()).containsEntry("lost", 1);
        assertThat(r.violations().get(0).what()).contains("c1").doesNotContain("c2");
    }

    @Test
    void aJobDoubleRunCountsInTheSummary() throws Exception {
        JsonNode jobs = Journal.JSON.readTree("""
                {"runs":[{"job":"prune-audit","occurrence":"o1","instanceId":"a","leaseStartMs":1,"leaseEndMs":2,"status":"completed"},
                         {"job":"prune-audit","occurrence":"o1","instanceId":"b","leaseStartMs":3,"leaseEndMs":4,"status":"completed"}]}""");
        ClusterReport r = ClusterReport.check(evidence(), Optional.of(jobs), COUNTS, List.of());
        assertThat(r.summaryLine()).endsWith("job_double_runs=1");
        assertThat(r.jobNote()).isEqualTo("2 server job runs checked");
    }

    @Test
    void aDrainThatLeftAKeyUnsettledFailsTheRunThoughEveryCounterIsZero() {
        ClusterReport r = ClusterReport.check(evidence(), Optional.empty(), COUNTS,
                List.of("device-b bob|course_sync: needs_attention: a push was sent but its result could not be confirmed"));
        assertThat(r.perCounter().values()).containsOnly(0);
        assertThat(r.passed()).isFalse();
    }

    // ---- history building -----------------------------------------------------------------------

    private ClusterReport check() {
        return ClusterReport.check(evidence(), Optional.empty(), COUNTS, List.of());
    }

    private Evidence evidence() {
        events.sort(java.util.Comparator.comparingLong(x -> x.path("mono").asLong()));
        return new Evidence(events, audit, Map.of("device-a", new Evidence.Device("client-a", outbox, 1, List.of(), Map.of())),
                Map.of(), Duration.ofSeconds(3), Duration.ofSeconds(3));
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
