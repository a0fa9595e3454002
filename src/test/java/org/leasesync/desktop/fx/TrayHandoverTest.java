package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.testing.ManualScheduler;

/** When a window hidden in the tray hands the tray over to the process without it; a manual timer, no stage. */
@Timeout(30)
class TrayHandoverTest {

    final ManualScheduler timer = new ManualScheduler();
    final AtomicBoolean ready = new AtomicBoolean(true);
    final AtomicInteger handovers = new AtomicInteger();
    final TrayHandover handover =
            new TrayHandover(ready::get, timer, Runnable::run, Duration.ofSeconds(20), handovers::incrementAndGet);

    @Test
    void theDelayComesFromTheEnvironmentOrIsTheDefault() {
        assertThat(TrayHandover.after(Map.of())).contains(TrayHandover.DEFAULT_AFTER);
        assertThat(TrayHandover.after(Map.of(TrayHandover.ENV, "2m"))).contains(Duration.ofMinutes(2));
        assertThat(TrayHandover.after(Map.of(TrayHandover.ENV, "5 s"))).contains(Duration.ofSeconds(5));
        assertThat(TrayHandover.after(Map.of(TrayHandover.ENV, "off"))).isEqualTo(Optional.empty());
        assertThat(TrayHandover.after(Map.of(TrayHandover.ENV, " OFF "))).isEqualTo(Optional.empty());
        assertThat(TrayHandover.after(Map.of(TrayHandover.ENV, "soon"))).contains(TrayHandover.DEFAULT_AFTER);
    }

    @Test
    void hiddenForTheDelayItHandsOverOnce() {
        handover.hidden();
        timer.advance(Duration.ofSeconds(19));
        assertThat(handovers).hasValue(0);
        timer.advance(Duration.ofSeconds(1));
        assertThat(handovers).hasValue(1);
        handover.shown();
        handover.hidden();
        timer.advance(Duration.ofMinutes(1));
        assertThat(handovers).as("at most once").hasValue(1);
    }

    @Test
    void shownAgainBeforeTheDelayNothingHappens() {
        handover.hidden();
        timer.advance(Duration.ofSeconds(15));
        handover.shown();
        timer.advance(Duration.ofMinutes(5));
        assertThat(handovers).hasValue(0);
        handover.hidden(); // the delay starts again from this hide
        timer.advance(Duration.ofSeconds(19));
        assertThat(handovers).hasValue(0);
        timer.advance(Duration.ofSeconds(1));
        assertThat(handovers).hasValue(1);
    }

    @Test
    void whileSomethingWouldBeLostItWaitsAndTriesAgain() {
        ready.set(false); // e.g. a run of this process in progress
        handover.hidden();
        timer.advance(Duration.ofSeconds(20));
        timer.advance(TrayHandover.RECHECK);
        timer.advance(TrayHandover.RECHECK);
        assertThat(handovers).hasValue(0);
        ready.set(true);
        timer.advance(TrayHandover.RECHECK);
        assertThat(handovers).hasValue(1);
    }
}
