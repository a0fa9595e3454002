package org.leasesync.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.leasesync.run.RetryPolicy;
import org.leasesync.run.RunStatus;
import org.leasesync.run.Stage;

class TaskKeyTest {

    @Test
    void writtenFormIsUserBarScopeAndParsesBack() {
        TaskKey k = TaskKey.of("alice", "course_sync");
        assertThat(k.asString()).isEqualTo("alice|course_sync");
        assertThat(TaskKey.parse("alice|course_sync")).isEqualTo(k);
        assertThat(TaskKey.parse("bob|backup").scope()).isEqualTo(Scope.BACKUP);
    }

    @Test
    void sameUserDifferentScopeIsADifferentKey() {
        assertThat(TaskKey.of("alice", "course_sync")).isNotEqualTo(TaskKey.of("alice", "message_sync"));
        assertThat(TaskKey.of("alice", "backup")).isNotEqualTo(TaskKey.of("bob", "backup"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", " alice", "alice ", "al|ice", "ali\u0000ce", "ali\nce", "ali\tce"})
    void rejectsInvalidUserIdsNamingTheProblem(String bad) {
        assertThatThrownBy(() -> new TaskKey(bad, Scope.BACKUP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user id");
    }

    @Test
    void rejectsNullUserAndTooLongUser() {
        assertThatThrownBy(() -> new TaskKey(null, Scope.BACKUP)).hasMessageContaining("blank");
        assertThatThrownBy(() -> new TaskKey("x".repeat(201), Scope.BACKUP)).hasMessageContaining("201 characters");
    }

    @Test
    void rejectsUnknownScopeListingTheValidOnes() {
        assertThatThrownBy(() -> TaskKey.of("alice", "photos"))
                .hasMessage("unknown scope 'photos'; expected one of course_sync, message_sync, backup");
        assertThatThrownBy(() -> TaskKey.parse("alice")).hasMessageContaining("no '|'");
        assertThatThrownBy(() -> TaskKey.parse("alice|")).hasMessageContaining("unknown scope ''");
    }

    @Test
    void rejectsZeroNegativeAndAbsurdTtls() {
        assertThatThrownBy(() -> TaskRegistry.validateTtl(Duration.ZERO)).hasMessageContaining("positive, got PT0S");
        assertThatThrownBy(() -> TaskRegistry.validateTtl(Duration.ofSeconds(-5)))
                .hasMessageContaining("PT-5S");
        assertThatThrownBy(() -> TaskRegistry.validateTtl(null)).hasMessageContaining("null");
        assertThatThrownBy(() -> TaskRegistry.validateTtl(Duration.ofMillis(5))).hasMessageContaining("100ms");
        assertThat(TaskRegistry.validateTtl(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void ownerIdRoundTripsAndRejectsGarbage() {
        OwnerId o = OwnerId.forCurrentProcess();
        assertThat(OwnerId.parse(o.asString())).isEqualTo(o);
        assertThat(o.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(OwnerId.forCurrentProcess()).isNotEqualTo(o);
        assertThatThrownBy(() -> OwnerId.parse("host/abc/1/ff")).hasMessageContaining("non-numeric");
        assertThatThrownBy(() -> OwnerId.parse("nonsense")).hasMessageContaining("host/pid/start/nonce");
    }

    @Test
    void unknownStageAndStatusTextParseToEmptySoCallersFailClosed() {
        assertThat(Stage.tryParse("teleporting")).isEmpty();
        assertThat(Stage.tryParse("PUSHING")).contains(Stage.PUSHING);
        assertThat(RunStatus.tryParse("exploded")).isEmpty();
    }

    @Test
    void retryDelaysGrowExponentiallyWithJitterAndAreCapped() {
        RetryPolicy p = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), 10);
        assertThat(p.delay(1, -1, () -> 0.0)).isEqualTo(Duration.ofMillis(500));
        assertThat(p.delay(1, -1, () -> 0.999)).isBetween(Duration.ofMillis(990), Duration.ofSeconds(1));
        assertThat(p.delay(4, -1, () -> 0.0)).isEqualTo(Duration.ofSeconds(4));
        assertThat(p.delay(30, -1, () -> 0.999)).isLessThanOrEqualTo(Duration.ofSeconds(30));
        assertThat(p.delay(1, 7_000, () -> 0.0)).isEqualTo(Duration.ofSeconds(7));
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(5), Duration.ofSeconds(1), 1))
                .hasMessageContaining("cap");
    }
}
