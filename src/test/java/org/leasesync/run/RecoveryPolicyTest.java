package org.leasesync.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;

class RecoveryPolicyTest {

    static final TaskKey KEY = TaskKey.of("alice", "backup");
    static final Instant T = Instant.parse("2026-11-30T10:00:00Z");

    static RunRecord run(String stage, String status) {
        return new RunRecord(
                "r1",
                KEY,
                4,
                "o",
                TaskSource.SCHEDULE,
                List.of(),
                T,
                Optional.empty(),
                Stage.tryParse(stage),
                stage,
                RunStatus.tryParse(status),
                status,
                Optional.empty(),
                Optional.empty(),
                List.of());
    }

    static Optional<Checkpoint> cp(String runId, long epoch, String stage, String batch, String key) {
        return Optional.of(new Checkpoint(
                KEY,
                runId,
                epoch,
                Stage.tryParse(stage),
                stage,
                Optional.of("c7"),
                Optional.ofNullable(batch),
                Optional.ofNullable(key),
                batch == null ? List.of() : List.of("x"),
                Optional.empty(),
                T));
    }

    static RecoveryDecision.Action decide(RunRecord r, Optional<Checkpoint> c) {
        return RecoveryPolicy.decide(r, c).action();
    }

    @Test
    void noCheckpointOfThatRunRestarts() {
        assertThat(decide(run("pulling", "running"), Optional.empty())).isEqualTo(RecoveryDecision.Action.RESTART);
        assertThat(decide(run("pulling", "running"), cp("older-run", 3, "done", null, null)))
                .isEqualTo(RecoveryDecision.Action.RESTART);
    }

    @Test
    void doneSkipsPullingAndPushingResume() {
        assertThat(decide(run("pushing", "running"), cp("r1", 4, "done", null, null)))
                .isEqualTo(RecoveryDecision.Action.SKIP);
        assertThat(decide(run("pulling", "running"), cp("r1", 4, "pulling", null, null)))
                .isEqualTo(RecoveryDecision.Action.RESUME);
        assertThat(decide(run("pushing", "running"), cp("r1", 4, "pushing", "b1", "k1")))
                .isEqualTo(RecoveryDecision.Action.RESUME);
        assertThat(decide(run("pushing", "running"), cp("r1", 4, "pushing", null, null)))
                .isEqualTo(RecoveryDecision.Action.RESUME);
        // a pull after an earlier run's unconfirmed push keeps that push in the checkpoint
        assertThat(decide(run("pulling", "running"), cp("r1", 4, "pulling", "b1", "k1")))
                .isEqualTo(RecoveryDecision.Action.RESUME);
    }

    @Test
    void unknownOrInconsistentStateAsks() {
        assertThat(decide(run("teleporting", "running"), cp("r1", 4, "pulling", null, null)))
                .isEqualTo(RecoveryDecision.Action.ASK);
        assertThat(decide(run("pulling", "zombie"), Optional.empty())).isEqualTo(RecoveryDecision.Action.ASK);
        assertThat(decide(run("pushing", "running"), cp("r1", 4, "half-pushed", "b1", "k1")))
                .isEqualTo(RecoveryDecision.Action.ASK);
        assertThat(decide(run("pushing", "running"), cp("r1", 4, "pushing", "b1", null)))
                .isEqualTo(RecoveryDecision.Action.ASK);
        assertThat(decide(run("pushing", "running"), cp("r1", 4, "pulling", "b1", null)))
                .isEqualTo(RecoveryDecision.Action.ASK);
        assertThat(decide(run("pushing", "running"), cp("r1", 9, "pushing", "b1", "k1")))
                .isEqualTo(RecoveryDecision.Action.ASK);
    }
}
