package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunEvent;
import org.leasesync.run.RunResult;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;

/** The signed-out gate: closed by this window's own signed-out run, for the automatic triggers of its user only. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SignedOutGateTest {

    static RunEvent finished(TaskKey key, RunStatus status) {
        return new RunEvent(
                RunEvent.Kind.FINISHED,
                key,
                Optional.empty(),
                Optional.empty(),
                Optional.of(new RunResult("run-1", key, status, Optional.empty(), Instant.EPOCH, true)),
                Optional.empty());
    }

    @Test
    void aSignedOutRunHoldsBackTheTimerWindowAndRetryOfItsUserUntilSignedInAgain() {
        SignedOutGate gate = new SignedOutGate();
        AtomicInteger changes = new AtomicInteger();
        gate.addListener(changes::incrementAndGet);
        TaskKey carol = TaskKey.of("carol", "course_sync");
        gate.accept(finished(carol, RunStatus.FAILED));
        assertThat(gate.isSignedOut("carol")).isFalse();

        gate.accept(finished(carol, RunStatus.SIGNED_OUT));
        assertThat(gate.isSignedOut("carol")).isTrue();
        TaskKey otherScope = TaskKey.of("carol", "backup");
        for (TaskSource s : new TaskSource[] {TaskSource.SCHEDULE, TaskSource.FOREGROUND, TaskSource.RETRY}) {
            assertThat(gate.refusal(otherScope, s))
                    .as(s.wireName())
                    .hasValue("signed out: the server no longer accepts " + "the session of carol; sign in again");
        }
        assertThat(gate.refusal(carol, TaskSource.MANUAL))
                .as("Sync now still runs")
                .isEmpty();
        assertThat(gate.refusal(TaskKey.of("dave", "backup"), TaskSource.SCHEDULE))
                .isEmpty();
        gate.accept(finished(TaskKey.of("carol", "message_sync"), RunStatus.SIGNED_OUT));
        assertThat(changes).as("told once").hasValue(1);

        gate.signedIn("carol");
        assertThat(gate.refusal(carol, TaskSource.SCHEDULE)).isEmpty();
        assertThat(changes).hasValue(2);
    }

    @Test
    void thePauseIsAskedFirstAndBothMustLetATriggerPass() {
        SignedOutGate gate = new SignedOutGate();
        gate.signedOut("carol");
        TriggerGate paused = (key, source) -> Optional.of("sync is paused until resumed");
        TaskKey carol = TaskKey.of("carol", "course_sync");
        assertThat(paused.and(gate).refusal(carol, TaskSource.SCHEDULE)).hasValue("sync is paused until resumed");
        assertThat(TriggerGate.OPEN.and(gate).refusal(carol, TaskSource.SCHEDULE))
                .get()
                .asString()
                .startsWith("signed out");
        assertThat(TriggerGate.OPEN.and(gate).refusal(TaskKey.of("dave", "backup"), TaskSource.SCHEDULE))
                .isEmpty();
    }
}
