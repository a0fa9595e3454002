package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PauseTest {

    static final Instant T = Instant.parse("2026-11-30T14:00:00.750Z");

    @Test
    void oneHourEndsAnHourLaterOnAWholeSecond() {
        Pause p = Pause.Option.ONE_HOUR.from(T, ZoneId.of("Europe/London"));
        assertThat(p.until()).contains(Instant.parse("2026-11-30T15:00:00Z"));
        assertThat(p.activeAt(Instant.parse("2026-11-30T14:59:59Z"))).isTrue();
        assertThat(p.activeAt(Instant.parse("2026-11-30T15:00:00Z"))).isFalse();
    }

    @Test
    void untilTomorrowEndsAtTheNextLocalMidnightOfTheUsersZone() {
        // 14:00 UTC is 22:00 in Shanghai: its tomorrow starts two hours later
        assertThat(Pause.Option.UNTIL_TOMORROW
                        .from(T, ZoneId.of("Asia/Shanghai"))
                        .until())
                .contains(Instant.parse("2026-11-30T16:00:00Z"));
        assertThat(Pause.Option.UNTIL_TOMORROW
                        .from(T, ZoneId.of("Europe/London"))
                        .until())
                .contains(Instant.parse("2026-12-01T00:00:00Z"));
        // 06:00 in Los Angeles: the start of 1 December there is 08:00 UTC
        assertThat(Pause.Option.UNTIL_TOMORROW
                        .from(T, ZoneId.of("America/Los_Angeles"))
                        .until())
                .contains(Instant.parse("2026-12-01T08:00:00Z"));
    }

    @Test
    void untilTomorrowOnTheDayClocksGoForwardIsTheRealStartOfTheNextDay() {
        // New York, 8 March 2026: clocks go forward at 02:00; the next day starts at 00:00 EDT (04:00 UTC)
        Instant morning = Instant.parse("2026-03-08T15:00:00Z");
        assertThat(Pause.Option.UNTIL_TOMORROW
                        .from(morning, ZoneId.of("America/New_York"))
                        .until())
                .contains(Instant.parse("2026-03-09T04:00:00Z"));
    }

    @Test
    void untilResumedNeverEndsByItself() {
        Pause p = Pause.Option.UNTIL_RESUMED.from(T, ZoneId.of("UTC"));
        assertThat(p).isEqualTo(Pause.untilResumed());
        assertThat(p.until()).isEmpty();
        assertThat(p.activeAt(Instant.parse("2099-01-01T00:00:00Z"))).isTrue();
        assertThat(new Pause(Optional.of(T)).activeAt(T.minusNanos(1))).isTrue();
    }
}
