package org.leasesync.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The foreground minimum interval compares the stored last success (the wall clock of whichever
 * process ran it) with this process's clock. Whatever the two clocks say, it may only ever let a
 * sync through, never hold one back for longer than the minimum interval (issue 12, kind 1).
 */
class ForegroundPolicyTest {

    static final Duration MIN = Duration.ofMinutes(5);
    static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    final ForegroundPolicy policy = new ForegroundPolicy(Duration.ofSeconds(1), MIN);

    @Test
    void aRecentSuccessHoldsTheForegroundSyncBackAndAnOldOneDoesNot() {
        assertThat(policy.due(Optional.of(NOW.minusSeconds(10)), NOW)).isFalse();
        assertThat(policy.due(Optional.of(NOW.minus(MIN)), NOW)).isTrue();
        assertThat(policy.due(Optional.empty(), NOW)).isTrue();
    }

    @Test
    void aLastSuccessHoursAheadOrBehindThisClockNeverHoldsASyncBack() {
        // written by a process whose clock runs 3 h ahead, or this clock was stepped back: not trusted
        assertThat(policy.due(Optional.of(NOW.plus(Duration.ofHours(3))), NOW)).isTrue();
        assertThat(policy.due(Optional.of(NOW.plusSeconds(1)), NOW)).isTrue();
        // written by a process 3 h behind, or this clock was stepped forward: simply old
        assertThat(policy.due(Optional.of(NOW.minus(Duration.ofHours(3))), NOW)).isTrue();
    }

    @Test
    void focusGainsAreDebouncedOnTheMonotonicClock() {
        assertThat(policy.onFocusGained(0, false)).isTrue();
        assertThat(policy.onFocusGained(500_000_000L, false)).isFalse();
        assertThat(policy.onFocusGained(2_000_000_000L, false)).isTrue();
        assertThat(policy.onFocusGained(9_000_000_000L, true)).isFalse();
    }
}
