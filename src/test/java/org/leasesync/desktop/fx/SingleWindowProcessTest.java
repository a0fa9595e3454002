package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.desktop.SingleInstance;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * One window per data directory, with real launches of the app under Xvfb with {@code openbox},
 * {@code trayer}, a session bus and {@code dunst}: a second launch shows the first one's window —
 * hidden to the tray, or iconified — and exits 0, leaving one window and one tray icon; the command
 * line's commands on the same data directory are not affected; and after the first is killed with
 * SIGKILL (its socket left behind), the next launch starts as the window.
 */
@DesktopTest
@ProcessTest
@Timeout(300)
class SingleWindowProcessTest {

    @TempDir
    Path tmp;

    DesktopSession session;
    ReferenceServer server;
    final List<Process> apps = new ArrayList<>();

    @AfterEach
    void stop(org.junit.jupiter.api.TestInfo test) throws InterruptedException {
        Path keep = Path.of(
                "target",
                "desktop-test-logs",
                test.getTestMethod().orElseThrow().getName());
        if (session != null) {
            session.keepLogs(keep);
        }
        try {
            Files.createDirectories(keep);
            for (Path f : org.leasesync.testing.LogFiles.list(tmp.resolve("data"))) {
                Files.copy(f, keep.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // diagnosis only
        }
        for (Process p : apps) {
            if (p.isAlive()) {
                p.destroy();
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
        if (server != null) {
            server.close();
        }
        if (session != null) {
            session.close();
        }
    }

    Map<String, String> env() {
        Map<String, String> env = new HashMap<>(session.env());
        env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        env.put("JAVA_TOOL_OPTIONS", "-Duser.language=en -Duser.country=GB");
        return env;
    }

    Process launch(int n) throws IOException {
        Process p = JavaProcess.start(
                Launcher.class,
                tmp.resolve("app-" + n + ".log"),
                env(),
                "--data-dir",
                tmp.resolve("data").toString(),
                "--server",
                server.baseUrl(),
                "--user",
                "alice",
                "--token",
                server.tokenFor("alice"),
                "--schedule-interval",
                "1s");
        apps.add(p);
        return p;
    }

    String log() {
        return org.leasesync.testing.LogFiles.read(tmp.resolve("data"));
    }

    /** The tray icons (AWT's XEmbed frames) inside the tray host's panel. */
    List<String> iconsInTheTray() {
        List<String> icons = new ArrayList<>();
        String panel = session.trayPanel().orElse(null);
        if (panel == null) {
            return icons;
        }
        for (String line : session.run("xwininfo", "-tree", "-id", panel).split("\n")) {
            if (line.contains("\"JavaEmbeddedFrame\"") && !line.contains(" 1x1+")) {
                icons.add(line.strip().split("\\s+")[0]);
            }
        }
        return icons;
    }

    /** Launches again on the same data directory; fails unless that launch exits 0 and says the window was shown. */
    void launchAgain(int n) throws Exception {
        Process second = launch(n);
        assertThat(second.waitFor(60, TimeUnit.SECONDS))
                .as("the second launch ends")
                .isTrue();
        String out = Files.readString(tmp.resolve("app-" + n + ".log"));
        assertThat(second.exitValue())
                .as("the second launch's exit code; its output: %s", out)
                .isZero();
        assertThat(out)
                .contains("leasesync already runs on " + tmp.resolve("data").toAbsolutePath());
    }

    @Test
    void aSecondLaunchShowsTheRunningWindowAndEndsAndAKilledWindowDoesNotBlockTheNext() throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), true);
        server = ReferenceServer.start(ServerConfig.defaults()
                .withDataDir(tmp.resolve("server"))
                .withPort(0)
                .withSeed(Seed.DEMO));
        Process first = launch(1);
        session.waitUntil(
                "the window is shown",
                () -> !session.visibleWindows("^leasesync$").isEmpty() || !first.isAlive());
        session.waitUntil("the icon is in the tray", () -> iconsInTheTray().size() == 1);
        session.waitUntil("closing hides to the tray", () -> log().contains("closing the window hides it in the tray"));

        // hidden to the tray: a second launch brings it back
        session.check("wmctrl", "-c", "leasesync");
        session.waitUntil(
                "the window is hidden",
                () -> session.visibleWindows("^leasesync$").isEmpty());
        launchAgain(2);
        session.waitUntil(
                "the hidden window is shown again",
                () -> session.visibleWindows("^leasesync$").size() == 1);
        assertThat(log()).contains("another launch on this data directory asked to show the window");

        // iconified: restored
        String window = session.visibleWindows("^leasesync$").get(0);
        session.check("xdotool", "windowminimize", "--sync", window);
        session.waitUntil(
                "the window is iconified",
                () -> session.visibleWindows("^leasesync$").isEmpty());
        launchAgain(3);
        session.waitUntil(
                "the iconified window is restored",
                () -> session.visibleWindows("^leasesync$").size() == 1);
        String active = session.run("xdotool", "getactivewindow").strip();
        assertThat(active).as("the shown window is the active one").isEqualTo(window);

        Thread.sleep(1500); // a second tray icon would have come by now
        assertThat(iconsInTheTray()).as("one tray icon").hasSize(1);
        assertThat(session.visibleWindows("^leasesync$")).as("one window").hasSize(1);
        assertThat(first.isAlive()).isTrue();

        // the command line is not affected by the running window
        Process status = JavaProcess.start(
                Launcher.class,
                tmp.resolve("status.log"),
                env(),
                "status",
                "--data-dir",
                tmp.resolve("data").toString());
        assertThat(status.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(status.exitValue())
                .as(Files.readString(tmp.resolve("status.log")))
                .isZero();
        assertThat(Files.readString(tmp.resolve("status.log"))).contains("alice|course_sync");

        // SIGKILL: the socket stays behind, and the next launch is the window all the same
        first.destroyForcibly();
        assertThat(first.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(tmp.resolve("data").resolve(SingleInstance.SOCKET)).exists();
        session.waitUntil(
                "the killed window is gone",
                () -> session.visibleWindows("^leasesync$").isEmpty());
        Process next = launch(4);
        session.waitUntil(
                "the next window is shown",
                () -> !session.visibleWindows("^leasesync$").isEmpty() || !next.isAlive());
        assertThat(next.isAlive())
                .as("the next launch runs: %s", Files.readString(tmp.resolve("app-4.log")))
                .isTrue();
        assertThat(log()).contains("removed the socket");
        session.waitUntil("its icon is in the tray", () -> iconsInTheTray().size() == 1);

        launchAgain(5); // and it answers a further launch in turn
        assertThat(next.isAlive()).isTrue();
    }
}
