package org.leasesync.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.leasesync.testing.ManualScheduler;

/**
 * The server's housekeeping backs off while it finds nothing to do, up to its idle delay, comes back
 * to its busy delay after work or a wake, and on a fixed delay (busy = idle) never backs off. On a
 * scheduler whose time moves only when the test says.
 */
class HousekeepingTicksTest {

    private static final Duration BUSY = Duration.ofSeconds(1);
    private static final Duration IDLE = Duration.ofSeconds(60);

    private final ManualScheduler scheduler = new ManualScheduler();
    private final AtomicInteger ticks = new AtomicInteger();
    private final AtomicBoolean work = new AtomicBoolean();

    private HousekeepingTicks ticks(Duration busy, Duration idle, Runnable during) {
        return new HousekeepingTicks(
                scheduler,
                () -> {
                    ticks.incrementAndGet();
                    during.run();
                    return work.get();
                },
                busy,
                idle);
    }

    /** The seconds between ticks while nothing is found, as the scheduler's time moves a second at a time. */
    private List<Integer> gapsOver(int seconds) {
        List<Integer> gaps = new ArrayList<>();
        int since = 0;
        for (int s = 1; s <= seconds; s++) {
            int before = ticks.get();
            scheduler.advance(Duration.ofSeconds(1));
            since++;
            if (ticks.get() != before) {
                assertThat(ticks.get() - before).as("one tick at a time").isEqualTo(1);
                gaps.add(since);
                since = 0;
            }
        }
        return gaps;
    }

    @Test
    void whileNothingIsFoundTheDelayDoublesUpToTheIdleOne() {
        ticks(BUSY, IDLE, () -> {}).start();
        assertThat(gapsOver(1 + 2 + 4 + 8 + 16 + 32 + 60 + 60)).containsExactly(1, 2, 4, 8, 16, 32, 60, 60);
    }

    @Test
    void workBringsTheDelayBackToTheBusyOne() {
        ticks(BUSY, IDLE, () -> {}).start();
        gapsOver(1 + 2 + 4 + 8 + 16);
        work.set(true);
        assertThat(gapsOver(32 + 3))
                .as("the tick that found work is the last long wait")
                .containsExactly(32, 1, 1, 1);
        work.set(false);
        assertThat(gapsOver(1 + 2 + 4))
                .as("the one armed after work, then doubling")
                .containsExactly(1, 2, 4);
    }

    @Test
    void aWakeBringsTheNextTickToWithinTheBusyDelay() {
        HousekeepingTicks t = ticks(BUSY, IDLE, () -> {});
        t.start();
        gapsOver(1 + 2 + 4 + 8 + 16 + 32 + 60); // the next is 60 s away
        scheduler.advance(Duration.ofSeconds(10));
        t.wake();
        t.wake(); // a second wake changes nothing
        int before = ticks.get();
        scheduler.advance(BUSY);
        assertThat(ticks.get()).as("a second after the wake").isEqualTo(before + 1);
        assertThat(scheduler.pending())
                .as("one tick pending, not the cancelled one too")
                .isEqualTo(1);
        assertThat(gapsOver(2 + 4)).as("and backs off again from there").containsExactly(2, 4);
    }

    @Test
    void aWakeWhileATickRunsCountsAsWork() {
        AtomicReferenceHolder holder = new AtomicReferenceHolder();
        HousekeepingTicks t = ticks(BUSY, IDLE, () -> {
            if (ticks.get() == 5) {
                holder.ticks.wake(); // a request during the fifth tick, whose next would be 32 s away
            }
        });
        holder.ticks = t;
        t.start();
        assertThat(gapsOver(1 + 2 + 4 + 8 + 16 + 1 + 2)).containsExactly(1, 2, 4, 8, 16, 1, 2);
    }

    @Test
    void aWakeWhenTheNextTickIsNearChangesNothing() {
        HousekeepingTicks t = ticks(BUSY, IDLE, () -> {});
        t.start();
        t.wake();
        assertThat(scheduler.pending()).isEqualTo(1);
        assertThat(gapsOver(1 + 2)).containsExactly(1, 2);
    }

    @Test
    void aFixedDelayNeverBacksOff() {
        ticks(BUSY, BUSY, () -> {}).start();
        assertThat(gapsOver(10)).containsExactly(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    }

    @Test
    void aTickThatThrowsCountsAsWorkAndTheTicksGoOn() {
        AtomicInteger n = new AtomicInteger();
        new HousekeepingTicks(
                        scheduler,
                        () -> {
                            if (n.incrementAndGet() == 3) {
                                throw new IllegalStateException("database gone");
                            }
                            return false;
                        },
                        BUSY,
                        IDLE)
                .start();
        scheduler.advance(Duration.ofSeconds(1 + 2 + 4));
        assertThat(n).hasValue(3);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(n).as("a second after the failure").hasValue(4);
    }

    @Test
    void closedTicksStop() {
        HousekeepingTicks t = ticks(BUSY, IDLE, () -> {});
        t.start();
        scheduler.advance(Duration.ofSeconds(3));
        t.close();
        t.wake();
        scheduler.advance(Duration.ofMinutes(10));
        assertThat(ticks).hasValue(2);
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    void theDelaysMustBePositiveAndInOrder() {
        assertThatThrownBy(() -> ticks(Duration.ZERO, IDLE, () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 < busy <= idle");
        assertThatThrownBy(() -> ticks(IDLE, BUSY, () -> {})).isInstanceOf(IllegalArgumentException.class);
        assertThat(HousekeepingTicks.nextDelayMillis(40_000, false, 1_000, 60_000))
                .isEqualTo(60_000);
        assertThat(HousekeepingTicks.nextDelayMillis(60_000, false, 1_000, 60_000))
                .isEqualTo(60_000);
        assertThat(HousekeepingTicks.nextDelayMillis(60_000, true, 1_000, 60_000))
                .isEqualTo(1_000);
    }

    private static final class AtomicReferenceHolder {
        volatile HousekeepingTicks ticks;
    }
}
