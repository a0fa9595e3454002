package org.leasesync.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** job_double_runs: an occurrence completed twice, or two runs of one job holding their leases at once. */
class JobRunCheckTest {

    @Test
    void aBuildWithoutTheJobsEndpointCountsZeroAndSaysSo() {
        JobRunCheck.Result r = JobRunCheck.check(Optional.empty());
        assertThat(r.violations()).isEmpty();
        assertThat(r.note()).isEqualTo("no server jobs on this build");
    }

    @Test
    void runsOneAfterAnotherAreClean() {
        JobRunCheck.Result r = JobRunCheck.check(Optional.of(json("""
                {"runs":[
                  {"job":"expire-keys","occurrence":"o1","instanceId":"ls-s1/1/a","leaseStartMs":100,"leaseEndMs":200,"status":"completed"},
                  {"job":"expire-keys","occurrence":"o2","instanceId":"ls-s2/1/b","leaseStartMs":200,"leaseEndMs":300,"status":"completed"},
                  {"job":"prune-audit","occurrence":"o1","instanceId":"ls-s3/1/c","leaseStartMs":150,"leaseEndMs":250,"status":"completed"}
                ]}""")));
        assertThat(r.violations()).isEmpty();
        assertThat(r.note()).isEqualTo("3 server job runs checked");
    }

    @Test
    void flagsAnOccurrenceCompletedTwice() {
        List<ChaosReport.Violation> v = JobRunCheck.doubleRuns(List.of(
                new JobRunCheck.JobRun("expire-keys", "o1", "ls-s1/1/a", 100, 200, true),
                new JobRunCheck.JobRun("expire-keys", "o1", "ls-s2/1/b", 300, 400, true)));
        assertThat(v).hasSize(1);
        assertThat(v.get(0).counter()).isEqualTo("job_double_runs");
        assertThat(v.get(0).what()).isEqualTo("job expire-keys occurrence o1 completed 2 times");
        assertThat(v.get(0).history()).anyMatch(l -> l.contains("ls-s2/1/b"));
    }

    @Test
    void aFailedAttemptFollowedByACompletedOneIsNoDoubleRun() {
        assertThat(JobRunCheck.doubleRuns(List.of(
                new JobRunCheck.JobRun("expire-keys", "o1", "ls-s1/1/a", 100, 200, false),
                new JobRunCheck.JobRun("expire-keys", "o1", "ls-s2/1/b", 300, 400, true)))).isEmpty();
    }

    @Test
    void flagsTwoRunsOfOneJobWhoseLeasesOverlap() {
        List<ChaosReport.Violation> v = JobRunCheck.doubleRuns(List.of(
                new JobRunCheck.JobRun("purge-tombstones", "o1", "ls-s1/1/a", 100, 250, false),
                new JobRunCheck.JobRun("purge-tombstones", "o2", "ls-s2/1/b", 249, 400, true)));
        assertThat(v).extracting(ChaosReport.Violation::what)
                .containsExactly("two runs of job purge-tombstones held their leases at the same time");
    }

    @Test
    void aLeaseStillHeldOverlapsEveryLaterRunOfItsJob() {
        JobRunCheck.Result r = JobRunCheck.check(Optional.of(json("""
                {"runs":[
                  {"job":"prune-audit","occurrence":"o1","instanceId":"a","leaseStartMs":100,"leaseEndMs":null,"status":"running"},
                  {"job":"prune-audit","occurrence":"o2","instanceId":"b","leaseStartMs":5000,"leaseEndMs":5100,"status":"completed"}
                ]}""")));
        assertThat(r.violations()).hasSize(1);
        assertThat(r.violations().get(0).history()).anyMatch(l -> l.contains("lease [100, held)"));
    }

    @Test
    void aRunEndingBeforeItStartsIsRefusedNamingTheJob() {
        assertThatThrownBy(() -> new JobRunCheck.JobRun("prune-audit", "o1", "a", 200, 100, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prune-audit").hasMessageContaining("100");
    }

    private static JsonNode json(String text) {
        try {
            return Journal.JSON.readTree(text);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
