package org.leasesync.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A lease row's stored times are the holder's wall clock: compared with this process's clock only as
 * a hint, and never trusted when the two may be hours apart.
 */
class LeaseRecordClockTest {

    static final Duration TTL = Duration.ofSeconds(60);
    static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    private static LeaseRecord renewedAt(Instant renewed) {
        return new LeaseRecord(
                TaskKey.of("alice", "course_sync"),
                Optional.of(new OwnerId("h", 1, 1, "a")),
                1,
                5,
                TTL,
                renewed,
                renewed.plus(TTL));
    }

    @Test
    void aRenewalWithinTheTtlByThisClockIsRecentAndShowsTheTimeLeft() {
        assertThat(renewedAt(NOW.minusSeconds(10)).renewedRecentlyBy(NOW)).isTrue();
        assertThat(renewedAt(NOW.minusSeconds(10)).expiresInBy(NOW)).contains(Duration.ofSeconds(50));
        assertThat(renewedAt(NOW.plusSeconds(1)).renewedRecentlyBy(NOW))
                .as("jitter between clocks")
                .isTrue();
    }

    @Test
    void aHolderClockHoursAheadOrBehindIsNeverRecentNorGivesATimeLeft() {
        for (Duration skew : new Duration[] {
            Duration.ofHours(3), Duration.ofHours(-3), Duration.ofMinutes(2), Duration.ofSeconds(-61)
        }) {
            LeaseRecord r = renewedAt(NOW.plus(skew)); // the holder renewed just now, by its own clock
            assertThat(r.renewedRecentlyBy(NOW)).as(skew.toString()).isFalse();
            assertThat(r.expiresInBy(NOW)).as(skew.toString()).isEmpty();
        }
    }

    @Test
    void aFreeKeyIsNeverRecent() {
        LeaseRecord free = new LeaseRecord(TaskKey.of("alice", "course_sync"), Optional.empty(), 1, 6, TTL, NOW, NOW);
        assertThat(free.renewedRecentlyBy(NOW)).isFalse();
        assertThat(free.expiresInBy(NOW)).isEmpty();
    }
}
