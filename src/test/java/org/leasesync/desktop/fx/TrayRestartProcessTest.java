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
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;

/**
 * The tray icon survives its tray host: the real app under Xvfb and openbox, whose {@code trayer}
 * is killed (SIGKILL, as a crashing panel) and started again, several times; each time the icon is
 * embedded in the new panel, and the window (hidden to the tray) can still be reached.
 */
@DesktopTest
@ProcessTest
@Timeout(400)
class TrayRestartProcessTest {

    @TempDir
    Path tmp;

    DesktopSession session;
    ReferenceServer server;
    Process app;

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
        if (app != null && app.isAlive()) {
            app.destroy();
            if (!app.waitFor(15, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        if (server != null) {
            server.close();
        }
        if (session != null) {
            session.close();
        }
    }

    /** The tray icons (AWT's XEmbed frames, mapped and viewable) inside the tray host's panel. */
    List<String> iconsInTheTray() {
        List<String> icons = new ArrayList<>();
        String panel = session.trayPanel().orElse(null);
        if (panel == null) {
            return icons;
        }
        for (String line : session.run("xwininfo", "-tree", "-id", panel).split("\n")) {
            if (line.contains("\"JavaEmbeddedFrame\"") && !line.contains(" 1x1+")) {
                String id = line.strip().split("\\s+")[0];
                if (session.run("xwininfo", "-id", id).contains("IsViewable")) {
                    icons.add(id);
                }
            }
        }
        return icons;
    }

    @Test
    void theIconComesBackEachTimeTheTrayHostRestarts() throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), true);
        server = ReferenceServer.start(ServerConfig.defaults()
                .withDataDir(tmp.resolve("server"))
                .withPort(0)
                .withSeed(Seed.DEMO));
        Map<String, String> env = new HashMap<>(session.env());
        env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        env.put("JAVA_TOOL_OPTIONS", "-Duser.language=en -Duser.country=GB");
        app = JavaProcess.start(
                Launcher.class,
                tmp.resolve("app.log"),
                env,
                "--data-dir",
                tmp.resolve("data").toString(),
                "--server",
                server.baseUrl(),
                "--user",
                "alice",
                "--token",
                server.tokenFor("alice"));
        session.waitUntil("the icon is in the tray", () -> iconsInTheTray().size() == 1);
        session.waitUntil(
                "the window is shown",
                () -> !session.visibleWindows("^leasesync$").isEmpty());
        session.check("wmctrl", "-c", "leasesync");
        session.waitUntil(
                "the window is hidden",
                () -> session.visibleWindows("^leasesync$").isEmpty());

        for (int i = 1; i <= 6; i++) {
            session.killTray();
            Thread.sleep(300 * (i % 3)); // a panel restarts at once, or a moment later
            session.startTray();
            int round = i;
            session.waitUntil(
                    "the icon is in the restarted tray (restart " + round + ")",
                    () -> iconsInTheTray().size() == 1);
            Thread.sleep(1000); // and stays there (a second icon, or one that leaves again, would show now)
            assertThat(iconsInTheTray())
                    .as("restart %d: one icon in the tray", i)
                    .hasSize(1);
        }
        assertThat(app.isAlive()).isTrue();
        // the hidden window is reachable: a click on the icon opens it
        String icon = iconsInTheTray().get(0);
        int[] g = session.geometry(icon);
        session.check(
                "xdotool", "mousemove", String.valueOf(g[0] + g[2] / 2), String.valueOf(g[1] + g[3] / 2), "click", "1");
        session.waitUntil(
                "the window opens from the icon",
                () -> !session.visibleWindows("^leasesync$").isEmpty());
    }
}
