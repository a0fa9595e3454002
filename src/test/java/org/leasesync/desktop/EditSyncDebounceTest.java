package org.leasesync.desktop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.lease.TaskKey;
import org.leasesync.testing.ManualScheduler;

/** The sync after an edit, on a scheduler the test moves: once, 2 s after the last save of a key. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EditSyncDebounceTest {

    static final TaskKey COURSES = TaskKey.of("alice", "course_sync");
    static final TaskKey MESSAGES = TaskKey.of("alice", "message_sync");

    final ManualScheduler scheduler = new ManualScheduler();
    final List<TaskKey> triggered = new CopyOnWriteArrayList<>();
    final EditSyncDebounce debounce = new EditSyncDebounce(scheduler, EditSyncDebounce.DEFAULT_DELAY, triggered::add);

    @Test
    void aBurstOfSavesMakesOneSyncTwoSecondsAfterTheLast() {
        debounce.saved(COURSES);
        scheduler.advance(Duration.ofMillis(1500));
        debounce.saved(COURSES);
        scheduler.advance(Duration.ofMillis(1500));
        debounce.saved(COURSES);
        scheduler.advance(Duration.ofMillis(1999));
        assertThat(triggered).as("3.5 s of saves, the last 1.999 s ago").isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(triggered).containsExactly(COURSES);
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(triggered).as("once").containsExactly(COURSES);
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    void eachKeyHasItsOwnDelayAndCloseCancelsWhatIsArmed() {
        debounce.saved(COURSES);
        scheduler.advance(Duration.ofSeconds(1));
        debounce.saved(MESSAGES);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(triggered).containsExactly(COURSES);
        debounce.saved(COURSES);
        debounce.close();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(triggered).as("closed: nothing more").containsExactly(COURSES);
        debounce.saved(COURSES);
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    void aDelayUnderAMillisecondIsRefusedNamingIt() {
        assertThatThrownBy(() -> new EditSyncDebounce(scheduler, Duration.ZERO, k -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
    }
}
