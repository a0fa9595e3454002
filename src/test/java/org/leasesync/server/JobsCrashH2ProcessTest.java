package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.server.jobs.StandardJobs;
import org.leasesync.testing.ProcessTest;

/**
 * One server on an H2 file, killed with {@code kill -9} in the middle of a job run: the next server
 * on the same data directory takes the job over at once (the dead owner's process is provably gone
 * on this machine) and resumes it from its checkpoint, recorded as a takeover of the killed run.
 */
@ProcessTest
class JobsCrashH2ProcessTest {

    @TempDir
    Path dir;

    private final List<ServeProcess> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (ServeProcess p : started) {
            p.process.destroyForcibly();
            p.process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aJobKilledMidRunIsResumedFromItsCheckpointByTheNextServerOnTheDataDirectory() throws Exception {
        Path data = dir.resolve("data");
        ServeProcess first = ServeProcess.start(
                dir.resolve("first.log"),
                Map.of(),
                started,
                "--data-dir",
                data.toString(),
                "--audit",
                "--audit-retention",
                "1ms",
                "--jobs",
                "off",
                "--job-batch-size",
                "2",
                "--job-pause",
                StandardJobs.PRUNE_AUDIT);
        for (int i = 0; i < 5; i++) {
            assertThat(first.pullAsAlice("backup")).isEqualTo(200); // five audit rows
        }
        Map.Entry<Integer, JsonNode> run = first.runJob(StandardJobs.PRUNE_AUDIT);
        assertThat(run.getKey()).as("%s", run.getValue()).isEqualTo(202);
        long killedRun = run.getValue().get("runId").asLong();
        JsonNode paused = await(
                first,
                j -> !j.get("checkpoint").isNull()
                        && j.get("checkpoint").get("processed").asLong() == 2);
        assertThat(paused.get("lease").get("instanceId").asText()).isEqualTo(first.instance);

        first.kill();
        ServeProcess second = ServeProcess.start(
                dir.resolve("second.log"),
                Map.of(),
                started,
                "--data-dir",
                data.toString(),
                "--audit",
                "--job-batch-size",
                "2");

        // (A scheduled run of the second server may follow the takeover: find the runs by what they are.)
        JsonNode done = await(
                second,
                j -> run(
                                j,
                                r -> r.get("trigger").asText().equals("takeover")
                                        && r.get("result").asText().equals("ok"))
                        != null);
        JsonNode resumed = run(done, r -> r.get("trigger").asText().equals("takeover"));
        JsonNode killed = run(done, r -> r.get("runId").asLong() == killedRun);
        assertThat(resumed.get("trigger").asText()).isEqualTo("takeover");
        assertThat(resumed.get("resumedFrom").asLong()).isEqualTo(killedRun);
        assertThat(resumed.get("instanceId").asText()).isEqualTo(second.instance);
        assertThat(resumed.get("processed").asLong())
                .as("2 before the kill, 3 after")
                .isEqualTo(5);
        assertThat(resumed.get("epoch").asLong()).isEqualTo(killed.get("epoch").asLong() + 1);
        assertThat(killed.get("runId").asLong()).isEqualTo(killedRun);
        assertThat(killed.get("instanceId").asText()).isEqualTo(first.instance);
        assertThat(killed.get("result").asText()).isEqualTo("interrupted");
        assertThat(killed.get("processed").asLong()).isEqualTo(2);
        assertThat(killed.get("detail").asText()).contains("taken over by instance " + second.instance);
        assertThat(done.get("lastRuns"))
                .extracting(r -> r.get("trigger").asText())
                .as("one takeover, and no other run resumed or repeated the killed one's work")
                .containsOnlyOnce("takeover")
                .doesNotContain("recovery");
    }

    private static JsonNode run(JsonNode job, Predicate<JsonNode> which) {
        for (JsonNode r : job.get("lastRuns")) {
            if (which.test(r)) {
                return r;
            }
        }
        return null;
    }

    private static JsonNode await(ServeProcess p, Predicate<JsonNode> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = p.job(StandardJobs.PRUNE_AUDIT);
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("prune-audit did not reach the expected state within 60 s; last: " + last);
    }
}
