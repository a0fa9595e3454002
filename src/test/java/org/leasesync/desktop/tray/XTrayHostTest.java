package org.leasesync.desktop.tray;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;

/**
 * {@link XTrayHost} against a real X server (Xvfb) with and without a real XEmbed tray host
 * ({@code trayer}): the answer that lets the tray skip AWT must be right both ways, since a wrong
 * "absent" would lose the tray icon.
 */
@DesktopTest
class XTrayHostTest {

    @TempDir
    Path tmp;

    @Test
    void aDesktopWithoutATrayHostIsAbsent() throws Exception {
        try (DesktopSession session = DesktopSession.start(tmp.resolve("desktop"), false)) {
            assertThat(XTrayHost.query(":" + session.display())).isEqualTo(XTrayHost.Answer.ABSENT);
        }
    }

    @Test
    void aDesktopWithTrayerIsPresent() throws Exception {
        try (DesktopSession session = DesktopSession.start(tmp.resolve("desktop"), true)) {
            String display = ":" + session.display();
            session.waitUntil("the tray host is seen", () -> XTrayHost.query(display) == XTrayHost.Answer.PRESENT);
            assertThat(XTrayHost.query(display + ".0")).isEqualTo(XTrayHost.Answer.PRESENT);
        }
    }

    @Test
    void theWatchSeesEveryRestartedTrayHostEvenUnderTheSameWindowId() throws Exception {
        try (DesktopSession session = DesktopSession.start(tmp.resolve("desktop"), true)) {
            String display = ":" + session.display();
            session.waitUntil("the tray host is seen", () -> XTrayHost.query(display) == XTrayHost.Answer.PRESENT);
            try (XTrayHost.OwnerWatch watch = XTrayHost.OwnerWatch.open(display).orElseThrow()) {
                XTrayHost.OwnerWatch.Seen first = watch.poll();
                assertThat(first.owner()).isNotZero();
                assertThat(first.newHost())
                        .as("the host that was there at open is not new")
                        .isFalse();
                for (int i = 1; i <= 3; i++) {
                    // no poll between the kill and the start: the gap with no owner is never seen, and
                    // Xvfb gives the restarted host's window the id the last one had (seen here each
                    // time), so only the host's MANAGER announcement tells the two apart
                    session.killTray();
                    session.startTray();
                    session.waitUntil(
                            "the restarted host owns the tray",
                            () -> XTrayHost.query(display) == XTrayHost.Answer.PRESENT);
                    XTrayHost.OwnerWatch.Seen seen = watch.poll();
                    assertThat(seen.newHost()).as("restart %d is seen", i).isTrue();
                    assertThat(watch.poll().newHost()).as("and seen once").isFalse();
                }
            }
        }
    }

    @Test
    void theWatchSleepsUntilAHostStartsOrItIsWoken() throws Exception {
        try (DesktopSession session = DesktopSession.start(tmp.resolve("desktop"), true)) {
            String display = ":" + session.display();
            session.waitUntil("the tray host is seen", () -> XTrayHost.query(display) == XTrayHost.Answer.PRESENT);
            try (XTrayHost.OwnerWatch watch = XTrayHost.OwnerWatch.open(display).orElseThrow()) {
                assertThat(watch.poll().newHost()).isFalse();
                assertThat(watch.await(300)).as("nothing happened: a timeout").isFalse();
                // a wake from another thread ends a long wait early
                Thread waker = new Thread(() -> {
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    watch.wake();
                });
                long start = System.nanoTime();
                waker.start();
                assertThat(watch.await(60_000)).as("woken, no event").isFalse();
                assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
                        .as("well before the minute")
                        .isLessThan(java.time.Duration.ofSeconds(30));
                waker.join();
                // a restarted host's MANAGER ends the wait with events to read
                session.killTray();
                session.startTray();
                boolean events = false;
                for (int i = 0; i < 20 && !events; i++) { // the host's old window going first may take a turn
                    events = watch.await(60_000) && watch.poll().newHost();
                }
                assertThat(events).as("the new host is seen through the wait").isTrue();
            }
        }
    }

    @Test
    void aDisplayThatCannotBeOpenedIsUnknownSoAwtIsAsked() {
        int n = 7321;
        while (Files.exists(Path.of("/tmp/.X11-unix/X" + n))) {
            n++;
        }
        assertThat(XTrayHost.query(":" + n)).isEqualTo(XTrayHost.Answer.UNKNOWN);
    }
}
