package org.leasesync.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Lease keys: the two kinds, their written forms, and the checked way from a lease key to a task key. */
class LeaseKeyTest {

    @Test
    void aJobKeyIsWrittenJobColonNameAndParsesBack() {
        JobKey k = JobKey.of("expire-idempotency-keys");
        assertThat(k.asString()).isEqualTo("job:expire-idempotency-keys");
        assertThat(k).hasToString("job:expire-idempotency-keys");
        assertThat(JobKey.parse("job:expire-idempotency-keys")).isEqualTo(k);
        assertThat(LeaseKey.parse("job:expire-idempotency-keys")).isEqualTo(k).isInstanceOf(JobKey.class);
        assertThat(JobKey.of("a")).isNotEqualTo(JobKey.of("b"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"prune-audit-log", "purge_tombstones", "v2.compact", "0", "a1-b2_c3.d4"})
    void acceptsTheDocumentedCharacterSet(String name) {
        assertThat(JobKey.of(name).name()).isEqualTo(name);
        assertThat(LeaseKey.parse("job:" + name)).isEqualTo(JobKey.of(name));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Prune",
                "prune audit",
                "prune|audit",
                "-prune",
                ".prune",
                "_prune",
                "prüne",
                "prune\n",
                "prune:log",
                "prune/log"
            })
    void rejectsNamesOutsideTheCharacterSetNamingTheValue(String bad) {
        assertThatThrownBy(() -> JobKey.of(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job name '" + bad.replace("\n", "?") + "'");
    }

    @Test
    void rejectsBlankNullAndTooLongNames() {
        assertThatThrownBy(() -> JobKey.of(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> JobKey.of("  ")).hasMessageContaining("blank");
        assertThatThrownBy(() -> JobKey.of(null)).hasMessageContaining("blank");
        assertThat(JobKey.of("x".repeat(JobKey.MAX_NAME_LENGTH)).name()).hasSize(100);
        assertThatThrownBy(() -> JobKey.of("x".repeat(101)))
                .hasMessageContaining("101 characters")
                .hasMessageContaining("at most 100");
    }

    @Test
    void parsingAStoredKeyTellsTheKindsApartUnambiguously() {
        assertThat(LeaseKey.parse("alice|course_sync")).isEqualTo(TaskKey.of("alice", "course_sync"));
        // a user id may start with "job:": the '|' makes it a task key, and a job key never has one
        LeaseKey lookalike = LeaseKey.parse("job:prune|backup");
        assertThat(lookalike).isInstanceOf(TaskKey.class);
        assertThat(((TaskKey) lookalike).userId()).isEqualTo("job:prune");
        assertThat(lookalike).isNotEqualTo(LeaseKey.parse("job:prune"));
        assertThat(LeaseKey.parse("job:prune")).isInstanceOf(JobKey.class);
        assertThat(TaskKey.of("job:prune", "backup").asString()).isEqualTo("job:prune|backup");
    }

    @Test
    void parsingRejectsTextThatIsNeitherKindNamingTheForms() {
        assertThatThrownBy(() -> LeaseKey.parse("alice"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'alice'")
                .hasMessageContaining("userId|scope")
                .hasMessageContaining("job:name");
        assertThatThrownBy(() -> LeaseKey.parse(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseKey.parse("job:")).hasMessageContaining("blank");
        assertThatThrownBy(() -> LeaseKey.parse("job:Bad")).hasMessageContaining("'Bad'");
        assertThatThrownBy(() -> LeaseKey.parse("alice|no_such_scope")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobKey.parse("alice")).hasMessageContaining("does not start with 'job:'");
    }

    @Test
    void theTaskKeyOfAFenceOrRecordIsCheckedAndAJobKeyIsNamedWhenItIsNone() {
        OwnerId owner = new OwnerId("h", 1, 1, "a");
        TaskKey task = TaskKey.of("alice", "backup");
        JobKey job = JobKey.of("prune-audit-log");
        assertThat(new Fence(task, owner, 3).taskKey()).isSameAs(task);
        assertThat(task.asTaskKey()).isSameAs(task);
        assertThatThrownBy(() -> new Fence(job, owner, 3).taskKey())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job:prune-audit-log")
                .hasMessageContaining("not a task key");
        Instant t = Instant.parse("2026-11-30T10:00:00Z");
        LeaseRecord jobRow =
                new LeaseRecord(job, Optional.of(owner), 2, 5, Duration.ofSeconds(60), t, t.plusSeconds(60));
        assertThat(jobRow.fence()).isEqualTo(new Fence(job, owner, 2));
        assertThatThrownBy(jobRow::taskKey)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job:prune-audit-log");
        LeaseRecord taskRow = new LeaseRecord(task, Optional.empty(), 2, 5, Duration.ofSeconds(60), t, t);
        assertThat(taskRow.taskKey()).isEqualTo(task);
    }

    @Test
    void aLeaseLostOnAJobKeyNamesTheJob() {
        Fence fence = new Fence(JobKey.of("purge-tombstones"), new OwnerId("h", 1, 1, "a"), 4);
        assertThat(new LeaseLostException(fence, LeaseLoss.TAKEN_OVER, null))
                .hasMessageStartingWith("lease lost for job:purge-tombstones (epoch 4)");
    }
}
