package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunView;
import org.leasesync.run.Stage;
import org.leasesync.run.TaskSource;

/** The cases of a key's status: what each carries and the kind it is compared by. */
class KeyStatusTest {

    static final TaskKey KEY = TaskKey.of("alice", "course_sync");
    static final Instant T = Instant.parse("2026-11-30T13:05:12Z");

    @Test
    void idleWithoutASuccessIsNeverSynced() {
        assertThat(KeyStatus.idle(KEY, Optional.empty())).isEqualTo(new KeyStatus.NeverSynced(KEY));
        assertThat(KeyStatus.idle(KEY, Optional.empty()).lastSuccess()).isEmpty();
        assertThat(KeyStatus.idle(KEY, Optional.of(T))).isEqualTo(new KeyStatus.Idle(KEY, T));
        assertThat(KeyStatus.idle(KEY, Optional.of(T)).lastSuccess()).contains(T);
    }

    @Test
    void eachCaseHasItsKind() {
        RunView r = new RunView(
                "r1", KEY, 3, "me", TaskSource.MANUAL, List.of(), T, Optional.of(Stage.PULLING), "", true, false);
        assertThat(new KeyStatus.NeverSynced(KEY).kind()).isEqualTo(KeyStatus.Kind.NEVER_SYNCED);
        assertThat(new KeyStatus.Idle(KEY, T).kind()).isEqualTo(KeyStatus.Kind.IDLE);
        assertThat(new KeyStatus.Running(KEY, Optional.empty(), r, false).kind())
                .isEqualTo(KeyStatus.Kind.RUNNING);
        assertThat(new KeyStatus.Failed(KEY, Optional.empty(), Optional.empty(), Optional.empty()).kind())
                .isEqualTo(KeyStatus.Kind.FAILED);
        assertThat(new KeyStatus.NeedsAttention(KEY, Optional.empty(), Optional.empty(), Optional.empty()).kind())
                .isEqualTo(KeyStatus.Kind.NEEDS_ATTENTION);
        assertThat(new KeyStatus.Cancelled(KEY, Optional.empty(), Optional.empty()).kind())
                .isEqualTo(KeyStatus.Kind.CANCELLED);
    }

    @Test
    void aRunJoinedByTheUserIsTheSameRunMarkedAsJoined() {
        RunView r =
                new RunView("r1", KEY, 3, "me", TaskSource.SCHEDULE, List.of(), T, Optional.empty(), "", true, false);
        KeyStatus.Running joined = new KeyStatus.Running(KEY, Optional.of(T), r, false).withJoinedByUser();
        assertThat(joined).isEqualTo(new KeyStatus.Running(KEY, Optional.of(T), r, true));
    }

    @Test
    void theRunsOfThisWindowHaveNoOtherProcess() {
        assertThat(new KeyStatus.Failed(KEY, Optional.empty(), Optional.of("x"), Optional.empty()).otherProcess())
                .isEmpty();
        assertThat(new KeyStatus.NeedsAttention(KEY, Optional.empty(), Optional.of("x"), Optional.empty())
                        .otherProcess())
                .isEmpty();
        assertThat(new KeyStatus.Cancelled(KEY, Optional.empty(), Optional.of("x")).otherProcess())
                .isEmpty();
    }
}
