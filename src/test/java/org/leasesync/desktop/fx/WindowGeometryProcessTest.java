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
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.WindowGeometry;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The window's size and place on a real 1366 × 768 screen (Xvfb) whose bottom 24 px a panel
 * ({@code trayer} with a strut) reserves, under {@code openbox}: a first start fits the work area
 * whole (frame included), and the saved geometry comes back on every path — shown at start, started
 * hidden (autostart) and opened later, and shown again after closing to the tray — with a position on
 * a monitor that is gone brought back onto the screen.
 */
@DesktopTest
@ProcessTest
@Timeout(300)
class WindowGeometryProcessTest {

    @TempDir
    Path tmp;

    DesktopSession session;
    ReferenceServer server;
    final List<Process> apps = new ArrayList<>();
    int launches;

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

    void startSession() throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), true, "1366x768", true);
        server = ReferenceServer.start(ServerConfig.defaults()
                .withDataDir(tmp.resolve("server"))
                .withPort(0)
                .withSeed(Seed.DEMO));
    }

    Process launch(boolean hidden) throws IOException {
        Map<String, String> env = new HashMap<>(session.env());
        env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        env.put("JAVA_TOOL_OPTIONS", "-Duser.language=en -Duser.country=GB");
        if (hidden) {
            env.put(Autostart.START_HIDDEN_ENV, "1");
        }
        Process p = JavaProcess.start(
                Launcher.class,
                tmp.resolve("app-" + (++launches) + ".log"),
                env,
                "--data-dir",
                tmp.resolve("data").toString(),
                "--server",
                server.baseUrl(),
                "--user",
                "alice",
                "--token",
                server.tokenFor("alice"),
                "--schedule-interval",
                "1h");
        apps.add(p);
        return p;
    }

    String log() {
        return org.leasesync.testing.LogFiles.read(tmp.resolve("data"));
    }

    static int occurrences(String text, String line) {
        int n = 0;
        for (int i = text.indexOf(line); i >= 0; i = text.indexOf(line, i + 1)) {
            n++;
        }
        return n;
    }

    /** The work area the window manager gives: x, y, width, height. */
    int[] workArea() {
        String out = session.check("xprop", "-root", "_NET_WORKAREA");
        String[] v = out.substring(out.indexOf('=') + 1).split(",");
        return new int[] {
            Integer.parseInt(v[0].strip()),
            Integer.parseInt(v[1].strip()),
            Integer.parseInt(v[2].strip()),
            Integer.parseInt(v[3].strip())
        };
    }

    /** The shown window with its frame: x, y, width, height (the window manager's frame extents added). */
    int[] outer(String window) {
        // xwininfo's absolute position (xdotool's counts the frame in twice under a reparenting window manager)
        String info = session.check("xwininfo", "-id", window);
        int[] g = new int[4];
        String[] fields = {"Absolute upper-left X:", "Absolute upper-left Y:", "Width:", "Height:"};
        for (String line : info.split("\n")) {
            for (int i = 0; i < 4; i++) {
                if (line.strip().startsWith(fields[i])) {
                    g[i] = Integer.parseInt(
                            line.strip().substring(fields[i].length()).strip());
                }
            }
        }
        String ext = session.run("xprop", "-id", window, "_NET_FRAME_EXTENTS");
        int l = 0;
        int r = 0;
        int t = 0;
        int b = 0;
        if (ext.contains("=")) {
            String[] v = ext.substring(ext.indexOf('=') + 1).split(",");
            l = Integer.parseInt(v[0].strip());
            r = Integer.parseInt(v[1].strip());
            t = Integer.parseInt(v[2].strip());
            b = Integer.parseInt(v[3].strip());
        }
        return new int[] {g[0] - l, g[1] - t, g[2] + l + r, g[3] + t + b};
    }

    /**
     * The app's window once it is shown and its frame is {@code placed}, or after 30 s, when the
     * caller's assertions say what it is instead. GTK maps a new window at its minimum size and JavaFX
     * applies the placement on a later pulse, after building the cards: under load that can take
     * seconds, so no fixed pause is long enough.
     */
    String shownWindow(Process app, Predicate<int[]> placed) throws InterruptedException {
        session.waitUntil(
                "the window is shown",
                () -> !session.visibleWindows("^leasesync$").isEmpty() || !app.isAlive());
        assertThat(app.isAlive()).isTrue();
        String w = session.visibleWindows("^leasesync$").get(0);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!placed.test(outer(w)) && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        return w;
    }

    static boolean near(int[] actual, int x, int y, int w, int h) {
        return Math.abs(actual[0] - x) <= 4
                && Math.abs(actual[1] - y) <= 4
                && Math.abs(actual[2] - w) <= 4
                && Math.abs(actual[3] - h) <= 4;
    }

    /** Whether the frame is where {@link WindowGeometry#place} puts the window. */
    static boolean near(int[] actual, WindowGeometry g) {
        return near(actual, (int) Math.round(g.x()), (int) Math.round(g.y()), (int) Math.round(g.width()), (int)
                Math.round(g.height()));
    }

    void quit(Process app) throws InterruptedException {
        app.destroy(); // SIGTERM saves the geometry as Quit does
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    void writeSaved(String window) throws IOException {
        Files.createDirectories(tmp.resolve("data"));
        Files.writeString(tmp.resolve("data/settings.json"), "{ \"window\" : " + window + " }\n");
    }

    static void assertNear(int[] actual, int x, int y, int w, int h, String what) {
        // the saved geometry is the frame's; a few pixels either way are the window manager's rounding
        assertThat(actual[2])
                .as(what + ": width of %s", java.util.Arrays.toString(actual))
                .isBetween(w - 4, w + 4);
        assertThat(actual[3])
                .as(what + ": height of %s", java.util.Arrays.toString(actual))
                .isBetween(h - 4, h + 4);
        assertThat(actual[0])
                .as(what + ": x of %s", java.util.Arrays.toString(actual))
                .isBetween(x - 4, x + 4);
        assertThat(actual[1])
                .as(what + ": y of %s", java.util.Arrays.toString(actual))
                .isBetween(y - 4, y + 4);
    }

    static void assertInside(int[] outer, int[] area, String what) {
        String s = java.util.Arrays.toString(outer) + " in the work area " + java.util.Arrays.toString(area);
        assertThat(outer[0]).as(what + ": left edge, " + s).isGreaterThanOrEqualTo(area[0]);
        assertThat(outer[1]).as(what + ": top edge, " + s).isGreaterThanOrEqualTo(area[1]);
        assertThat(outer[0] + outer[2]).as(what + ": right edge, " + s).isLessThanOrEqualTo(area[0] + area[2]);
        assertThat(outer[1] + outer[3]).as(what + ": bottom edge, " + s).isLessThanOrEqualTo(area[1] + area[3]);
    }

    @Test
    void theFirstSizeFitsTheWorkAreaAndTheSavedGeometryComesBackOnEveryPath() throws Exception {
        startSession();
        int[] area = workArea();
        assertThat(area[3]).as("the panel reserves its strip").isEqualTo(768 - 24);

        // a first start: the window fits the work area, frame and all, at least its minimum
        Process app = launch(false);
        // the first-start placement (the window passes through other sizes on the way)
        WindowGeometry placed = WindowGeometry.place(
                java.util.Optional.empty(), List.of(new WindowGeometry.Area(area[0], area[1], area[2], area[3])));
        int[] first = outer(shownWindow(app, g -> near(g, placed)));
        assertInside(first, area, "a first start");
        assertThat(first[3]).isGreaterThanOrEqualTo(480);
        quit(app);

        // started hidden (autostart), then opened from the tray: the saved geometry, not a default
        writeSaved("{ \"x\" : 100.0, \"y\" : 60.0, \"width\" : 900.0, \"height\" : 600.0, \"maximized\" : false }");
        // started at login, leasesync lives in the tray without its window (and without JavaFX) until opened
        String inTray = "runs in the tray without its window";
        int before = occurrences(log(), inTray);
        app = launch(true);
        session.waitUntil("the tray process is in the tray", () -> occurrences(log(), inTray) > before);
        assertThat(session.visibleWindows("^leasesync$")).isEmpty();
        Process again = launch(false); // opening it: another launch shows the running window
        assertThat(again.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String window = shownWindow(app, g -> near(g, 100, 60, 900, 600));
        assertNear(outer(window), 100, 60, 900, 600, "started hidden, then opened");

        // closed to the tray and shown again: where it was
        session.check("xdotool", "windowmove", "--sync", window, "200", "120");
        Thread.sleep(800);
        int[] moved = outer(window);
        session.check("wmctrl", "-c", "leasesync");
        session.waitUntil(
                "the window is hidden",
                () -> session.visibleWindows("^leasesync$").isEmpty());
        again = launch(false);
        assertThat(again.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String shownAgain = shownWindow(app, g -> near(g, moved[0], moved[1], moved[2], moved[3]));
        assertNear(outer(shownAgain), moved[0], moved[1], moved[2], moved[3], "shown again after closing");
        quit(app);

        // saved on a monitor that is gone, and taller than this screen: back on the screen, whole
        writeSaved("{ \"x\" : 2400.0, \"y\" : 300.0, \"width\" : 1000.0, \"height\" : 900.0, \"maximized\" : false }");
        app = launch(false);
        WindowGeometry fitted = WindowGeometry.place(
                java.util.Optional.of(new WindowGeometry(2400, 300, 1000, 900, false)),
                List.of(new WindowGeometry.Area(area[0], area[1], area[2], area[3])));
        int[] back = outer(shownWindow(app, g -> near(g, fitted)));
        assertInside(back, area, "a position on a monitor that is gone");
        assertThat(back[2]).as("its width kept").isBetween(996, 1004);
        quit(app);
    }
}
