package org.leasesync.desktop.fx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.property.SimpleBooleanProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The status refresh on a real scheduler: often while the window is shown, not at all for a while when hidden. */
class StatusRefresherTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger refreshes = new AtomicInteger();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aHiddenWindowIsNotRefreshedEveryPeriod() throws InterruptedException {
        SimpleBooleanProperty showing = new SimpleBooleanProperty(true);
        try (StatusRefresher r = new StatusRefresher(
                timer, showing, Duration.ofMillis(20), Duration.ofMinutes(1), refreshes::incrementAndGet)) {
            r.start();
            Thread.sleep(300);
            assertTrue(refreshes.get() >= 3, "shown: refreshed every 20 ms, got " + refreshes.get());

            showing.set(false);
            Thread.sleep(50); // a refresh under way when it was hidden may still end
            int atHide = refreshes.get();
            Thread.sleep(400);
            assertEquals(atHide, refreshes.get(), "hidden in the tray: no refresh within the hidden period");

            showing.set(true);
            Thread.sleep(100);
            assertTrue(refreshes.get() > atHide, "shown again: refreshed at once");
        }
    }

    @Test
    void startedHiddenItWaitsTheHiddenPeriod() throws InterruptedException {
        SimpleBooleanProperty showing = new SimpleBooleanProperty(false);
        try (StatusRefresher r = new StatusRefresher(
                timer, showing, Duration.ofMillis(20), Duration.ofMillis(150), refreshes::incrementAndGet)) {
            r.start();
            Thread.sleep(100);
            assertEquals(0, refreshes.get(), "started in the tray: nothing before the hidden period");
            Thread.sleep(400);
            int n = refreshes.get();
            assertTrue(n >= 1 && n <= 4, "every 150 ms while hidden, got " + n + " in 500 ms");
        }
    }

    @Test
    void closedItRefreshesNoMore() throws InterruptedException {
        SimpleBooleanProperty showing = new SimpleBooleanProperty(true);
        StatusRefresher r = new StatusRefresher(
                timer, showing, Duration.ofMillis(20), Duration.ofMillis(20), refreshes::incrementAndGet);
        r.start();
        Thread.sleep(100);
        r.close();
        Thread.sleep(50);
        int atClose = refreshes.get();
        showing.set(false);
        showing.set(true);
        Thread.sleep(200);
        assertEquals(atClose, refreshes.get());
        timer.shutdown();
        assertTrue(timer.awaitTermination(1, TimeUnit.SECONDS), "no task left on the scheduler");
    }
}
