package org.leasesync.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.lease.HeldLease;
import org.leasesync.lease.OwnerId;
import org.leasesync.lease.OwnerLiveness;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TaskRegistry;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.Checkpoint;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;
import org.leasesync.store.LocalStore;
import picocli.CommandLine;

class StatusCommandTest {

    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {}

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = LeasesyncCommand.commandLine(new LeasesyncCommand(o -> 0));
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void statusOnAnEmptyDataDirectorySaysNothingRanAndCreatesNothing() {
        Path dir = tmp.resolve("empty");
        Result r = run("status", "--data-dir", dir.toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("nothing has run");
        assertThat(Files.exists(dir)).isFalse();
    }

    /** A holder whose clock runs 3 h ahead: its expiry is not shown as "in 3 h". */
    @Test
    void statusDoesNotCompareAHolderClockHoursAheadWithItsOwn() throws Exception {
        Path dir = tmp.resolve("skewed");
        try (LocalStore store = LocalStore.openFile(dir)) {
            TimeSource ahead =
                    TimeSource.system(java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofHours(3)));
            new TaskRegistry(
                            store.leases(),
                            OwnerId.forCurrentProcess(),
                            Duration.ofSeconds(60),
                            ahead,
                            OwnerLiveness.neverProvable())
                    .tryAcquire(TaskKey.of("alice", "course_sync"))
                    .orElseThrow();
        }
        JsonNode lease = new ObjectMapper()
                .readTree(run("status", "--json", "--data-dir", dir.toString()).out())
                .get("leases")
                .get(0);
        assertThat(lease.get("state").asText()).isEqualTo("held");
        assertThat(lease.get("expiresInMillis").isNull()).as(lease.toString()).isTrue();
        assertThat(run("status", "--data-dir", dir.toString()).out())
                .contains("unknown: renewed")
                .contains("by the holder's clock");
    }

    @Test
    void statusShowsLeasesRunsAndCheckpointsOfAPopulatedDirectory() throws Exception {
        Path dir = tmp.resolve("data");
        TaskKey key = TaskKey.of("alice", "course_sync");
        OwnerId owner = OwnerId.forCurrentProcess();
        try (LocalStore store = LocalStore.openFile(dir)) {
            TaskRegistry reg = new TaskRegistry(
                    store.leases(), owner, Duration.ofSeconds(60), TimeSource.system(), OwnerLiveness.neverProvable());
            HeldLease lease = reg.tryAcquire(key).orElseThrow();
            var now = TimeSource.system().now();
            store.runs().insertRun(lease.fence(), "run-1", TaskSource.SCHEDULE, Stage.PULLING, now, Optional.empty());
            store.runs().recordMergedTrigger("run-1", TaskSource.MANUAL, now);
            store.runs()
                    .saveCheckpoint(
                            lease.fence(),
                            new Checkpoint(
                                    key,
                                    "run-1",
                                    1,
                                    Optional.of(Stage.PUSHING),
                                    "pushing",
                                    Optional.of("cur-42"),
                                    Optional.of("batch-9"),
                                    Optional.of("idem-9"),
                                    List.of("c1"),
                                    Optional.of(now),
                                    now));
            store.runs().finishRun(lease.fence(), "run-1", RunStatus.FAILED, Optional.of("server said 500"), now);
            reg.release(lease);
            reg.tryAcquire(TaskKey.of("bob", "backup")).orElseThrow();
        }
        Result r = run("status", "--data-dir", dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "alice|course_sync",
                        "bob|backup",
                        owner.asString(),
                        "failed",
                        "server said 500",
                        "schedule +manual",
                        "cur-42",
                        "idem-9",
                        "held",
                        "free");

        Result json = run("status", "--json", "--data-dir", dir.toString());
        JsonNode root = new ObjectMapper().readTree(json.out());
        assertThat(root.get("leases")).hasSize(2);
        JsonNode bob = root.get("leases").get(1);
        assertThat(bob.get("key").asText()).isEqualTo("bob|backup");
        assertThat(bob.get("owner").asText()).isEqualTo(owner.asString());
        assertThat(bob.get("epoch").asLong()).isEqualTo(1);
        assertThat(bob.get("expiresInMillis").asLong()).isBetween(1L, 60_000L);
        assertThat(root.get("lastRuns").get(0).get("mergedSources").get(0).asText())
                .isEqualTo("manual");
        assertThat(root.get("checkpoints").get(0).get("idempotencyKey").asText())
                .isEqualTo("idem-9");

        Result history = run("history", "--key", "alice|course_sync", "--data-dir", dir.toString());
        assertThat(history.out())
                .contains(
                        "failed", "started by schedule (joined by manual × 1)", "server said 500", "stages: pulling @");
    }

    /** 16 triggers joined one run: counted per source on one short line, and as an object in JSON. */
    @Test
    void historyCountsMergedTriggersPerSourceInsteadOfListingEveryOne() throws Exception {
        Path dir = tmp.resolve("merged");
        TaskKey key = TaskKey.of("alice", "course_sync");
        try (LocalStore store = LocalStore.openFile(dir)) {
            TaskRegistry reg = new TaskRegistry(
                    store.leases(),
                    OwnerId.forCurrentProcess(),
                    Duration.ofSeconds(60),
                    TimeSource.system(),
                    OwnerLiveness.neverProvable());
            HeldLease lease = reg.tryAcquire(key).orElseThrow();
            var now = TimeSource.system().now();
            store.runs().insertRun(lease.fence(), "run-1", TaskSource.MANUAL, Stage.PULLING, now, Optional.empty());
            for (int i = 0; i < 16; i++) {
                TaskSource s = i < 12 ? TaskSource.SCHEDULE : i < 15 ? TaskSource.FOREGROUND : TaskSource.MANUAL;
                store.runs().recordMergedTrigger("run-1", s, now.plusMillis(i));
            }
            store.runs().finishRun(lease.fence(), "run-1", RunStatus.SUCCEEDED, Optional.empty(), now);
        }
        Result text = run("history", "--key", "alice|course_sync", "--data-dir", dir.toString());
        assertThat(text.code()).as(text.err()).isZero();
        assertThat(text.out()).contains("started by manual (joined by schedule × 12, foreground × 3, manual × 1)");
        assertThat(text.out()).doesNotContain("schedule, schedule");

        JsonNode run = new ObjectMapper()
                .readTree(run("history", "--json", "--key", "alice|course_sync", "--data-dir", dir.toString())
                        .out())
                .get("runs")
                .get(0);
        JsonNode counts = run.get("mergedSourceCounts");
        assertThat(counts.get("schedule").asInt()).isEqualTo(12);
        assertThat(counts.get("foreground").asInt()).isEqualTo(3);
        assertThat(counts.get("manual").asInt()).isEqualTo(1);
        assertThat(counts.fieldNames()).toIterable().containsExactly("schedule", "foreground", "manual");
        assertThat(run.get("mergedSources")).hasSize(16); // kept for existing readers
    }

    @Test
    void badKeyIsAUsageErrorWithExitCode2() {
        Result r = run("history", "--key", "alice|photos", "--data-dir", tmp.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("unknown scope 'photos'");
    }

    @Test
    void damagedDatabaseFileGivesAClearErrorAndIsLeftUntouched() throws Exception {
        Path dir = tmp.resolve("broken");
        Files.createDirectories(dir);
        Path file = dir.resolve("leasesync.mv.db");
        byte[] garbage =
                "this is not an H2 database file at all, just text".repeat(100).getBytes();
        Files.write(file, garbage);
        Result r = run("status", "--data-dir", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err())
                .contains("the local database " + file + " is damaged", "changed nothing", "move it aside")
                .doesNotContain("\tat ");
        assertThat(Files.readAllBytes(file)).isEqualTo(garbage);
    }

    @Test
    void anEmptiedDatabaseFileIsReportedAndNeverSilentlyRecreated() throws Exception {
        Path dir = tmp.resolve("emptied");
        Files.createDirectories(dir);
        Path file = dir.resolve("leasesync.mv.db");
        Files.createFile(file);
        Result r = run("status", "--data-dir", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("is empty (0 bytes)", file.toString());
        assertThat(Files.size(file)).isZero();
        Result edit = run(
                "edit",
                "--data-dir",
                dir.toString(),
                "--user",
                "alice",
                "--scope",
                "backup",
                "--id",
                "x",
                "--payload",
                "{}");
        assertThat(edit.code()).isEqualTo(1);
        assertThat(Files.size(file)).isZero();
    }

    @Test
    void aDataDirectoryThatIsAFileIsRefusedClearly() throws Exception {
        Path notADir = tmp.resolve("plain-file");
        Files.writeString(notADir, "hello");
        Result r = run(
                "edit",
                "--data-dir",
                notADir.toString(),
                "--user",
                "alice",
                "--scope",
                "backup",
                "--id",
                "x",
                "--payload",
                "{}");
        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains("is a file, not a directory").doesNotContain("\tat ");
        assertThat(Files.readString(notADir)).isEqualTo("hello");
    }
}
