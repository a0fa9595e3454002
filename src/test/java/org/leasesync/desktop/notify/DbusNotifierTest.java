package org.leasesync.desktop.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.notify.NotificationPolicy.Notice;
import org.leasesync.lease.TaskKey;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.Screenshots;

/**
 * The real notification path: dbus-java on a real session bus ({@code dbus-daemon}) to a real
 * notification daemon ({@code dunst}) on a real X server; the call is watched on the bus with
 * {@code dbus-monitor}, what is shown is asked of {@code dunstctl}, and the click is a real mouse
 * click on dunst's window.
 */
@DesktopTest
class DbusNotifierTest {

    static final TaskKey COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    DesktopSession session;
    DbusNotifier notifier;

    @AfterEach
    void stop() {
        if (notifier != null) {
            notifier.close();
        }
        if (session != null) {
            session.close();
        }
    }

    int displayed() {
        return Integer.parseInt(session.run("dunstctl", "count", "displayed").strip());
    }

    @Test
    void showsANotificationOnTheSessionBusReplacesItAndReportsTheClick() throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), false);
        Path monitorLog = tmp.resolve("desktop/monitor.log");
        session.spawn(
                "monitor",
                List.of(
                        "dbus-monitor",
                        "--address",
                        session.busAddress(),
                        "interface='org.freedesktop.Notifications'"));
        session.waitUntil(
                "dbus-monitor watching",
                () -> Files.exists(monitorLog) && read(monitorLog).contains("NameAcquired"));
        BlockingQueue<TaskKey> clicks = new LinkedBlockingQueue<>();
        notifier = DbusNotifier.connect(session.busAddress(), "Open", clicks::add);
        assertThat(notifier.available()).isTrue();

        long id = notifier.show(
                new Notice(
                        COURSES,
                        Notice.Kind.FAILING,
                        "Courses: sync keeps failing",
                        "It failed 3 times in a row. Last error: the sync server failed (HTTP 500)",
                        3,
                        "HTTP 500"),
                0);
        assertThat(id).isPositive();
        assertThat(notifier.isOpen(id)).isTrue();
        session.waitUntil("dunst shows it", () -> displayed() == 1);
        session.waitUntil(
                "the Notify call seen on the bus",
                () -> read(monitorLog).contains("string \"Courses: sync keeps failing\""));
        String call = read(monitorLog);
        assertThat(call)
                .contains("member=Notify")
                .contains("string \"leasesync\"")
                .contains("string \"default\"")
                .contains("string \"Open\"")
                .contains("It failed 3 times in a row");
        // the app icon: its pixels (64×64 RGBA) and the menu entry that names it
        assertThat(call)
                .contains("string \"image-data\"")
                .containsPattern(
                        "variant\\s+struct \\{\\s+int32 64\\s+int32 64\\s+int32 256\\s+boolean true\\s+int32 8\\s+int32 4")
                .contains("string \"desktop-entry\"")
                .contains("string \"leasesync-leasesync\"");

        long again = notifier.show(
                new Notice(
                        COURSES,
                        Notice.Kind.FAILING,
                        "Courses, Messages: sync keeps failing",
                        "Each failed at least 3 times in a row. Last error: the sync server failed (HTTP 500)",
                        3,
                        "HTTP 500"),
                id);
        assertThat(again).isEqualTo(id); // replaced in place, not a second notification
        session.waitUntil(
                "the replacement seen on the bus",
                () -> read(monitorLog).contains("Courses, Messages: sync keeps failing"));
        Thread.sleep(300);
        assertThat(displayed()).isEqualTo(1);

        List<String> windows = session.visibleWindows("^Dunst$");
        assertThat(windows).hasSize(1);
        int[] g = session.geometry(windows.get(0));
        Screenshots.save(session, "dbus-notifier-test.png", g[0] - 12, g[1] - 12, g[2] + 24, g[3] + 24);

        session.check("xdotool", "mousemove", String.valueOf(g[0] + g[2] / 2), String.valueOf(g[1] + g[3] / 2));
        Thread.sleep(200);
        session.check("xdotool", "click", "1");
        assertThat(clicks.poll(20, TimeUnit.SECONDS)).isEqualTo(COURSES);
        session.waitUntil("closed after the click", () -> !notifier.isOpen(id) && displayed() == 0);
        assertThat(clicks).isEmpty();
    }

    @Test
    void aWithdrawnNotificationLeavesTheScreenThroughCloseNotification() throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), false);
        Path monitorLog = tmp.resolve("desktop/monitor.log");
        session.spawn(
                "monitor",
                List.of(
                        "dbus-monitor",
                        "--address",
                        session.busAddress(),
                        "interface='org.freedesktop.Notifications'"));
        session.waitUntil(
                "dbus-monitor watching",
                () -> Files.exists(monitorLog) && read(monitorLog).contains("NameAcquired"));
        notifier = DbusNotifier.connect(session.busAddress(), "Open", k -> {});
        long id = notifier.show(
                new Notice(
                        COURSES,
                        Notice.Kind.FAILING,
                        "Courses: sync keeps failing",
                        "It failed 3 times in a row.",
                        3,
                        "HTTP 500"),
                0);
        session.waitUntil("dunst shows it", () -> displayed() == 1);

        notifier.withdraw(id);
        session.waitUntil("dunst no longer shows it", () -> displayed() == 0);
        assertThat(notifier.isOpen(id)).isFalse();
        session.waitUntil(
                "CloseNotification seen on the bus", () -> read(monitorLog).contains("member=CloseNotification"));
        assertThat(read(monitorLog).substring(read(monitorLog).indexOf("member=CloseNotification")))
                .contains("uint32 " + id);
        notifier.withdraw(id); // already withdrawn: nothing more is sent
        Thread.sleep(300);
        assertThat(read(monitorLog).split("member=CloseNotification", -1)).hasSize(2);
    }

    @Test
    void aBusThatIsNotThereIsAClearError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> DbusNotifier.connect("unix:path=" + tmp.resolve("no-bus"), "Open", k -> {}))
                .isInstanceOf(org.leasesync.lease.LeasesyncException.class)
                .hasMessageStartingWith("cannot reach the session bus at unix:path=" + tmp.resolve("no-bus"));
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
