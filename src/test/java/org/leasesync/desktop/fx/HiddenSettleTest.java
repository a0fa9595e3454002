package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The full collection after the window hides to the tray, which is what gives the open window's heap back. */
class HiddenSettleTest {

    final AtomicBoolean showing = new AtomicBoolean(true);
    final List<Duration> delays = new ArrayList<>();
    final List<Runnable> due = new ArrayList<>();
    final AtomicInteger collections = new AtomicInteger();
    final HiddenSettle settle = new HiddenSettle(
            showing::get,
            (delay, task) -> {
                delays.add(delay);
                due.add(task);
            },
            collections::incrementAndGet);

    @Test
    void aHiddenWindowIsFollowedByOneFullCollectionAfterTheDelay() {
        showing.set(false);
        settle.hidden();
        assertThat(collections).as("nothing before the delay is over").hasValue(0);
        assertThat(delays).containsExactly(HiddenSettle.AFTER_HIDE);
        due.forEach(Runnable::run);
        assertThat(collections).hasValue(1);
    }

    @Test
    void aWindowShownAgainBeforeTheDelayIsOverIsNotCollectedFor() {
        showing.set(false);
        settle.hidden();
        showing.set(true);
        due.forEach(Runnable::run);
        assertThat(collections).hasValue(0);
    }
}
