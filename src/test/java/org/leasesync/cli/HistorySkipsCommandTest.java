package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.run.TriggerRequest;
import org.leasesync.store.JdbcRecentSyncs;
import org.leasesync.store.JdbcRunStore;
import org.leasesync.store.LocalStore;
import org.leasesync.sync.RecentSyncGate;
import org.leasesync.testing.ManualTime;

/** {@code leasesync history} shows each skipped timer trigger above the run that made it unnecessary. */
class HistorySkipsCommandTest {

    @TempDir
    Path tmp;

    @Test
    void historyListsSkippedTimerTriggersAboveTheirRunInTextAndJson() throws Exception {
        Path dir = tmp.resolve("data");
        TaskKey key = TaskKey.of("alice", "course_sync");
        ManualTime time = new ManualTime();
        OwnerId a = new OwnerId("host", 4242, 1, "a");
        OwnerId b = new OwnerId("host", 4343, 1, "b");
        try (LocalStore store = LocalStore.openFile(dir)) {
            TaskRegistry reg =
                    new TaskRegistry(store.leases(), a, Duration.ofSeconds(60), time, OwnerLiveness.neverProvable());
            JdbcRunStore runs = new JdbcRunStore(store.database(), time);
            RecentSyncGate gateB = new RecentSyncGate(new JdbcRecentSyncs(store.database()), time, b);
            for (String run : new String[] {"run-1", "run-2"}) {
                HeldLease lease = reg.tryAcquire(key).orElseThrow();
                runs.insertRun(lease.fence(), run, TaskSource.SCHEDULE, Stage.PULLING, time.now(), Optional.empty());
                runs.finishRun(lease.fence(), run, RunStatus.SUCCEEDED, Optional.empty(), time.now());
                reg.release(lease);
                time.elapse(Duration.ofSeconds(3));
                assertThat(gateB.backgroundTriggers(Duration.ofMinutes(5), Duration.ofMinutes(1))
                                .skipReason(TriggerRequest.of(key, TaskSource.SCHEDULE))
                                .isPresent())
                        .isTrue();
                time.elapse(Duration.ofMinutes(5));
            }
        }

        StatusCommandTest.Result text =
                StatusCommandTest.run("history", "--key", "alice|course_sync", "--data-dir", dir.toString());
        assertThat(text.code()).as(text.err()).isZero();
        String out = text.out();
        assertThat(out).contains("skipped  schedule trigger", "skipped: synced 3 s ago by another process (pid 4242)");
        int skip2 = out.indexOf("skipped  schedule trigger");
        int run2 = out.indexOf("run run-2");
        int skip1 = out.indexOf("skipped  schedule trigger", skip2 + 1);
        int run1 = out.indexOf("run run-1");
        assertThat(skip2).as(out).isNotNegative().isLessThan(run2);
        assertThat(run2).as(out).isLessThan(skip1);
        assertThat(skip1).as(out).isLessThan(run1);

        StatusCommandTest.Result json =
                StatusCommandTest.run("history", "--json", "--key", "alice|course_sync", "--data-dir", dir.toString());
        JsonNode root = new ObjectMapper().readTree(json.out());
        assertThat(root.get("runs")).hasSize(2);
        JsonNode skipped = root.get("skipped");
        assertThat(skipped).hasSize(2);
        assertThat(skipped.get(0).get("recentRunId").asText()).isEqualTo("run-2");
        assertThat(skipped.get(1).get("recentRunId").asText()).isEqualTo("run-1");
        assertThat(skipped.get(0).get("ageMillis").asLong()).isEqualTo(3_000);
        assertThat(skipped.get(0).get("source").asText()).isEqualTo("schedule");
        assertThat(skipped.get(0).get("owner").asText()).isEqualTo(b.asString());
    }
}
