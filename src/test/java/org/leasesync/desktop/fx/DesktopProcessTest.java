package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.Launcher;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.tray.TrayState;
import org.leasesync.desktop.tray.TrayStateTest;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.testing.DesktopSession;
import org.leasesync.testing.DesktopTest;
import org.leasesync.testing.JavaProcess;
import org.leasesync.testing.ProcessTest;
import org.leasesync.testing.Screenshots;

/**
 * The app as a user runs it: a real process with the real GTK window on a real X server with a
 * window manager, an XEmbed tray host ({@code trayer}), a session bus and a notification daemon
 * ({@code dunst}); driven with {@code xdotool} and {@code wmctrl} as a person would (closing the
 * window, right-clicking the tray icon, choosing menu entries, clicking a notification), against
 * a reference server in this JVM whose faults the test switches.
 */
@DesktopTest
@ProcessTest
class DesktopProcessTest {

    @TempDir
    Path tmp;

    DesktopSession session;
    ReferenceServer server;
    Process app;
    /** Set by a test before {@link #start}: added to the app's environment. */
    final Map<String, String> extraEnv = new HashMap<>();
    /** The tray process a window handed the tray over to, if any. */
    ProcessHandle handedOver;

    @AfterEach
    void stop(org.junit.jupiter.api.TestInfo test) throws InterruptedException, IOException {
        Path keep = Path.of(
                "target",
                "desktop-test-logs",
                test.getTestMethod().orElseThrow().getName());
        if (session != null) {
            session.keepLogs(keep);
        }
        if (Files.exists(tmp.resolve("app.log"))) {
            Files.createDirectories(keep);
            Files.copy(
                    tmp.resolve("app.log"), keep.resolve("app.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        for (Path f : org.leasesync.testing.LogFiles.list(tmp.resolve("data"))) {
            Files.createDirectories(keep);
            Files.copy(f, keep.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        if (handedOver != null && handedOver.isAlive()) {
            handedOver.destroy();
            try {
                handedOver.onExit().get(15, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                handedOver.destroyForcibly();
            }
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

    void start(boolean tray) throws Exception {
        start(tray, false);
    }

    void start(boolean tray, boolean hidden) throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), tray);
        server = ReferenceServer.start(ServerConfig.defaults()
                .withDataDir(tmp.resolve("server"))
                .withPort(0)
                .withSeed(Seed.DEMO));
        Map<String, String> env = new HashMap<>(session.env());
        env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        env.put("JAVA_TOOL_OPTIONS", "-Duser.language=en -Duser.country=GB"); // 24-hour times, as in the README
        if (hidden) {
            env.put(Autostart.START_HIDDEN_ENV, "1"); // as the autostart entry starts it
        }
        env.putAll(extraEnv);
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
                server.tokenFor("alice"),
                "--schedule-interval",
                "1s");
        if (!hidden) {
            session.waitUntil(
                    "the window is shown",
                    () -> !session.visibleWindows("^leasesync$").isEmpty() || !app.isAlive());
        }
        assertThat(app.isAlive())
                .as("the app runs; its output: %s", read(tmp.resolve("app.log")))
                .isTrue();
        session.waitUntil(
                "the first sync reached the server", () -> server.stats().requests() >= 3);
    }

    String log() {
        return org.leasesync.testing.LogFiles.read(tmp.resolve("data"));
    }

    /** The tray icon's window inside trayer (AWT's XEmbed frame), once the window's icon is in place. */
    String trayIcon() throws InterruptedException {
        return trayIcon("closing the window hides it in the tray");
    }

    /** The tray icon's window inside trayer, once the log has {@code ready} (what put it there says so). */
    String trayIcon(String ready) throws InterruptedException {
        session.waitUntil("the tray icon is put in place", () -> log().contains(ready));
        String[] found = new String[1];
        session.waitUntil("the icon is in the tray", () -> {
            for (String line : session.run("xwininfo", "-root", "-tree").split("\n")) {
                if (line.contains("\"JavaEmbeddedFrame\"") && !line.contains(" 1x1+")) {
                    found[0] = line.strip().split("\\s+")[0];
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** The icon as the tray shows it. */
    BufferedImage iconPixels(String icon) throws IOException {
        Path png = tmp.resolve("icon.png");
        session.check("import", "-window", icon, png.toString());
        return ImageIO.read(png.toFile());
    }

    void waitForIconState(String icon, TrayState state) throws InterruptedException {
        session.waitUntil("the tray icon shows " + state, () -> {
            try {
                BufferedImage img = iconPixels(icon);
                return TrayStateTest.pixelsNear(img, state.badgeRgb()) >= 12;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Opens the tray icon's menu with a right click, as a person does. */
    int[] openTrayMenu(String icon) throws InterruptedException {
        int[] g = session.geometry(icon);
        // press at once: hovering first would bring up the icon's tooltip over the menu
        session.check(
                "xdotool",
                "mousemove",
                String.valueOf(g[0] + g[2] / 2),
                String.valueOf(g[1] + g[3] / 2),
                "mousedown",
                "3",
                "sleep",
                "0.15",
                "mouseup",
                "3");
        String[] menu = new String[1];
        session.waitUntil("the tray menu is open", () -> {
            List<String> w = session.visibleWindows("^sun-awt-X11-XPopupMenuPeer$");
            menu[0] = w.isEmpty() ? null : w.get(0);
            return menu[0] != null;
        });
        int[] m = session.geometry(menu[0]);
        // off the icon at once (onto the menu's disabled status line), before its tooltip comes up
        session.check("xdotool", "mousemove", String.valueOf(m[0] + 12), String.valueOf(m[1] + 6));
        Thread.sleep(300);
        return m;
    }

    /** Moves the pointer onto the open submenu's first entry (the one the keyboard chose). */
    void pointAtTheSubmenu() throws InterruptedException {
        String[] sub = new String[1];
        session.waitUntil("the submenu is open", () -> {
            List<String> w = session.visibleWindows("^sun-awt-X11-XMenuWindow$");
            sub[0] = w.isEmpty() ? null : w.get(0);
            return sub[0] != null;
        });
        int[] g = session.geometry(sub[0]);
        session.check("xdotool", "mousemove", String.valueOf(g[0] + 30), String.valueOf(g[1] + 10));
        Thread.sleep(500);
    }

    /** Chooses the menu entry {@code downs} rows below the (disabled) status line, by keyboard. */
    void choose(int downs, String... thenKeys) throws InterruptedException {
        for (int i = 0; i < downs; i++) {
            session.check("xdotool", "key", "Down");
            Thread.sleep(120);
        }
        for (String k : thenKeys) {
            session.check("xdotool", "key", k);
            Thread.sleep(300);
        }
    }

    @Test
    void theWindowInChineseAndTheSettingsDialogFromTheTrayMenu() throws Exception {
        Files.createDirectories(tmp.resolve("data"));
        Files.writeString(
                tmp.resolve("data/settings.json"), "{ \"language\" : \"zh-CN\" }\n"); // as the dialog saves it
        start(true);
        String icon = trayIcon();
        waitForIconState(icon, TrayState.UP_TO_DATE);
        String window = session.visibleWindows("^leasesync$").get(0);
        session.check("xdotool", "mousemove", "640", "760"); // away from the window and the tray icon
        Thread.sleep(1500);
        int[] w = session.geometry(window);
        Screenshots.save(
                session, "screenshot-window-zh.png", w[0] - 8, w[1] - 40, w[2] + 16, w[3] + 48); // with its frame

        openTrayMenu(icon);
        choose(4, "Return"); // 设置… (Settings…)
        String[] dialog = new String[1];
        session.waitUntil("the settings dialog is shown", () -> {
            List<String> d = session.visibleWindows("^leasesync 设置$");
            dialog[0] = d.isEmpty() ? null : d.get(0);
            return dialog[0] != null;
        });
        session.check("xdotool", "mousemove", "640", "760");
        Thread.sleep(1000);
        int[] d = session.geometry(dialog[0]);
        Screenshots.save(session, "screenshot-settings-zh.png", d[0] - 8, d[1] - 40, d[2] + 16, d[3] + 48);
        session.check("xdotool", "key", "Escape"); // Cancel
        session.waitUntil(
                "the dialog is closed",
                () -> session.visibleWindows("^leasesync 设置$").isEmpty());

        // the tray's menu in Chinese too (AWT draws it with its own fonts: the CJK font must reach it)
        int[] menu = openTrayMenu(icon);
        Screenshots.save(session, "tray-menu-zh.png", menu[0] - 24, menu[1] - 8, menu[2] + 48, menu[3] + 16);
        session.check("xdotool", "key", "Escape");
        assertThat(app.isAlive()).isTrue();
    }

    @Test
    void closingTheWindowKeepsSyncingInTheTrayWhoseMenuPausesOpensAndQuits() throws Exception {
        start(true);
        String icon = trayIcon();
        waitForIconState(icon, TrayState.UP_TO_DATE);

        session.check("wmctrl", "-c", "leasesync"); // the window manager's close, as the title bar's X
        session.waitUntil(
                "the window is hidden",
                () -> session.visibleWindows("^leasesync$").isEmpty());
        Thread.sleep(500);
        assertThat(app.isAlive()).isTrue();
        assertThat(log()).contains("window closed; leasesync keeps running in the tray");
        long before = server.stats().requests();
        session.waitUntil(
                "the timer syncs with the window closed", () -> server.stats().requests() >= before + 6);

        // Pause syncing ▸ For 1 hour (the screenshot shows the menu with its submenu open)
        int[] menu = openTrayMenu(icon);
        choose(3, "Right");
        pointAtTheSubmenu(); // off the icon, so its tooltip does not cover the menu
        Screenshots.save(
                session, "screenshot-tray-menu.png", menu[0] - 24, 0, 1280 - (menu[0] - 24), menu[1] + menu[3] + 60);
        choose(0, "Return");
        pausedHoldsTheTimerBack(icon);
        assertThat(log()).contains("schedule trigger for alice|course_sync skipped: sync is paused until");

        openTrayMenu(icon);
        choose(1, "Return"); // Open leasesync
        session.waitUntil(
                "the window is shown again",
                () -> !session.visibleWindows("^leasesync$").isEmpty());
        session.check("xdotool", "mousemove", "640", "700"); // away from the tray icon's tooltip
        Thread.sleep(1500);
        Screenshots.save(session, "screenshot-paused.png");

        openTrayMenu(icon);
        choose(5, "Return"); // Quit leasesync (Resume syncing stands where Pause was)
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).as("the app quits").isTrue();
        assertThat(app.exitValue()).isZero();
        assertThat(log()).contains("quit from the menu");
        assertThat(session.run("xwininfo", "-root", "-tree")).doesNotContain("\"JavaEmbeddedFrame\"");
    }

    @Test
    void aFailingServerRaisesOneNotificationAndClickingItOpensTheWindowAtTheCard() throws Exception {
        start(true);
        String icon = trayIcon();
        session.check("wmctrl", "-c", "leasesync");
        session.waitUntil(
                "the window is hidden",
                () -> session.visibleWindows("^leasesync$").isEmpty());

        server.faults().set(new FaultSettings(0, 0, 0, 0, 1_000_000)); // every request: 429
        session.waitUntil("one notification", () -> displayed() == 1);
        waitForIconState(icon, TrayState.FAILED);
        Thread.sleep(5000); // five more timer ticks, every scope failing each time
        assertThat(displayed()).isEqualTo(1);
        assertThat(session.run("dunstctl", "count", "history").strip()).isEqualTo("0"); // none came and went
        assertThat(log()).contains("sync keeps failing");

        List<String> windows = session.visibleWindows("^Dunst$");
        assertThat(windows).hasSize(1);
        int[] g = session.geometry(windows.get(0));
        Screenshots.save(session, "screenshot-notification.png", g[0] - 40, 0, 1280 - (g[0] - 40), g[1] + g[3] + 16);

        session.check("xdotool", "mousemove", String.valueOf(g[0] + g[2] / 2), String.valueOf(g[1] + g[3] / 2));
        Thread.sleep(200);
        session.check("xdotool", "click", "1");
        session.waitUntil(
                "the window opened",
                () -> !session.visibleWindows("^leasesync$").isEmpty());
        session.waitUntil("at the card", () -> log().contains("window opened at the card of "));
        assertThat(log()).containsPattern("notification \\d+ about alice\\|\\w+ clicked");
        session.waitUntil("the notification closed", () -> displayed() == 0);

        server.faults().clear();
        waitForIconState(icon, TrayState.UP_TO_DATE);
        openTrayMenu(icon);
        choose(5, "Return");
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(app.exitValue()).isZero();
    }

    @Test
    void startedAtLoginItSyncsInTheTrayWithoutOpeningTheWindow() throws Exception {
        start(true, true); // the first sync has reached the server
        String icon = trayIcon(RESIDENT);
        waitForIconState(icon, TrayState.UP_TO_DATE);
        assertThat(session.visibleWindows("^leasesync$")).isEmpty();
        assertThat(log()).contains("started for alice|course_sync by foreground");
        assertThat(javaFxLoaded(app.pid()))
                .as("JavaFX is not loaded in the tray")
                .isFalse();
        openTrayMenu(icon);
        choose(1, "Return"); // Open leasesync
        session.waitUntil(
                "the window opens from the tray",
                () -> !session.visibleWindows("^leasesync$").isEmpty());
        icon = trayIcon(); // the window's own icon
        openTrayMenu(icon);
        choose(5, "Return");
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(app.exitValue()).isZero();
    }

    /** After Pause from the tray menu: the icon says so, and no timer tick reaches the server. */
    void pausedHoldsTheTimerBack(String icon) throws Exception {
        session.waitUntil("paused", () -> log().contains("sync paused until"));
        waitForIconState(icon, TrayState.PAUSED);
        Thread.sleep(1500); // a run that had started before the pause ends
        long paused = server.stats().requests();
        Thread.sleep(3000); // three timer ticks
        assertThat(server.stats().requests()).isEqualTo(paused);
    }

    /** What the tray process logs once its icon is in the tray. */
    static final String RESIDENT = "runs in the tray without its window (no JavaFX loaded)";

    /** Whether process {@code pid} has mapped JavaFX's native window library. */
    static boolean javaFxLoaded(long pid) throws IOException {
        return Files.readString(Path.of("/proc/" + pid + "/maps")).contains("libglass");
    }

    @Test
    void closedToTheTrayTheWindowHandsOverToAProcessWithoutJavaFxWhoseTrayKeepsEverything() throws Exception {
        extraEnv.put(TrayHandover.ENV, "2s");
        start(true);
        String icon = trayIcon();
        waitForIconState(icon, TrayState.UP_TO_DATE);
        assertThat(javaFxLoaded(app.pid())).isTrue();

        session.check("wmctrl", "-c", "leasesync");
        assertThat(app.waitFor(60, TimeUnit.SECONDS))
                .as("the window's process ends after the handover")
                .isTrue();
        assertThat(app.exitValue()).isZero();
        var handed = java.util.regex.Pattern.compile("handed the tray over to process (\\d+)")
                .matcher(log());
        assertThat(handed.find()).as("the handover is logged: %s", log()).isTrue();
        handedOver = ProcessHandle.of(Long.parseLong(handed.group(1))).orElseThrow();
        icon = trayIcon(RESIDENT);
        assertThat(javaFxLoaded(handedOver.pid()))
                .as("JavaFX is not loaded in the tray")
                .isFalse();
        assertThat(log()).contains("stopped").doesNotContain("ERROR");

        long before = server.stats().requests();
        session.waitUntil(
                "the timer syncs in the tray process", () -> server.stats().requests() >= before + 6);
        waitForIconState(icon, TrayState.UP_TO_DATE);

        openTrayMenu(icon);
        choose(3, "Right"); // Pause syncing ▸ For 1 hour
        pointAtTheSubmenu();
        choose(0, "Return");
        pausedHoldsTheTimerBack(icon);

        openTrayMenu(icon);
        choose(1, "Return"); // Open leasesync: the window, in the same process
        session.waitUntil(
                "the window opens from the tray",
                () -> !session.visibleWindows("^leasesync$").isEmpty());
        assertThat(handedOver.isAlive()).isTrue();
        assertThat(javaFxLoaded(handedOver.pid())).isTrue();
        session.waitUntil(
                "the window's icon is in place",
                () -> log().lastIndexOf("closing the window hides it in the tray") > log().lastIndexOf(RESIDENT));
        icon = trayIcon();
        waitForIconState(icon, TrayState.PAUSED); // the pause is the settings', not the process's
        openTrayMenu(icon);
        choose(5, "Return"); // Quit leasesync
        handedOver.onExit().get(30, TimeUnit.SECONDS);
        assertThat(log()).contains("quit from the menu");
    }

    @Test
    void withoutATrayClosingTheWindowQuits() throws Exception {
        start(false);
        session.waitUntil("the app found no tray", () -> log().contains("no system tray"));
        session.check("wmctrl", "-c", "leasesync");
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).as("closing quits").isTrue();
        assertThat(app.exitValue()).isZero();
        assertThat(log()).contains("window closed; stopping");
        assertThat(read(tmp.resolve("data/settings.json"))).contains("\"noTrayNoticeShown\" : true");
    }

    static final String PASSWORD = "alice-pass-2026";

    /** A leasesync command as its own process, {@code stdin} on its standard input; fails unless it exits 0. */
    String cli(String stdin, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = JavaProcess.jvm();
        cmd.addAll(List.of("-cp", JavaProcess.classPath(), Launcher.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write((stdin == null ? "" : stdin).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(90, TimeUnit.SECONDS))
                .as("leasesync %s ends", args[0])
                .isTrue();
        assertThat(p.exitValue())
                .as("leasesync %s: %s", String.join(" ", args), out)
                .isZero();
        return out;
    }

    /** A real {@code leasesync serve} on an H2 data directory, on {@code port}; waits until it listens. */
    Process serve(Path dir, int port, int n) throws Exception {
        Path out = tmp.resolve("serve-" + n + ".log");
        Process p = JavaProcess.start(
                Launcher.class,
                out,
                "serve",
                "--port",
                String.valueOf(port),
                "--data-dir",
                dir.toString(),
                "--seed",
                "none");
        session.waitUntil("serve listens", () -> read(out).contains("listening on ") || !p.isAlive());
        assertThat(p.isAlive()).as("serve runs: %s", read(out)).isTrue();
        return p;
    }

    static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** What the server has of alice's course_sync, read through a session of its own (signed in with the password). */
    static String aliceCourses(String url) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpResponse<String> in = http.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/v1/sessions"))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"user\":\"alice\",\"password\":\"" + PASSWORD + "\",\"device\":\"test\"}"))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(in.statusCode()).as(in.body()).isEqualTo(201);
        String token = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(in.body())
                .get("token")
                .asText();
        return http.send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create(url + "/v1/users/alice/scopes/course_sync/changes"))
                                .header("Authorization", "Bearer " + token)
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
    }

    long count(String text) {
        return log().lines().filter(l -> l.contains(text)).count();
    }

    @Test
    void revokedOnTheServerTheWindowSaysSignedOutOnceHoldsBackTheTimerAndSigningInAgainPushesTheKeptEdit()
            throws Exception {
        session = DesktopSession.start(tmp.resolve("desktop"), true);
        // a real keyring on the session's bus, its login keyring unlocked with a password on standard input
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path runtime = Files.createDirectories(tmp.resolve("run"));
        Files.setPosixFilePermissions(runtime, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Map<String, String> keyringEnv = Map.of(
                "HOME",
                home.toString(),
                "XDG_RUNTIME_DIR",
                runtime.toString(),
                "XDG_DATA_HOME",
                home.resolve(".local/share").toString());
        session.spawn(
                "gnome-keyring",
                List.of("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"),
                keyringEnv,
                "test-keyring-password");
        session.waitUntil(
                "gnome-keyring serves the Secret Service",
                () -> session.run(
                                "dbus-send",
                                "--session",
                                "--print-reply",
                                "--dest=org.freedesktop.DBus",
                                "/org/freedesktop/DBus",
                                "org.freedesktop.DBus.NameHasOwner",
                                "string:org.freedesktop.secrets")
                        .contains("boolean true"));

        // the sync server as an operator runs it: an account made with 'leasesync users add', then 'serve'
        Path serverDir = tmp.resolve("server");
        cli(PASSWORD + "\n", Map.of(), "users", "add", "alice", "--password-stdin", "--data-dir", serverDir.toString());
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process serve = serve(serverDir, port, 1);
        String url = "http://127.0.0.1:" + port;
        try {
            Map<String, String> env = new HashMap<>(session.env());
            env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
            env.put("JAVA_TOOL_OPTIONS", "-Duser.language=en -Duser.country=GB");
            String data = tmp.resolve("data").toString();
            // signed in once, on the command line; the window then starts as that account
            assertThat(cli(
                            PASSWORD,
                            env,
                            "login",
                            "--server",
                            url,
                            "--user",
                            "alice",
                            "--password-stdin",
                            "--data-dir",
                            data))
                    .contains("desktop keyring");
            String firstToken = session.run(
                            "secret-tool", "lookup", "service", "leasesync", "server", url + "/", "user", "alice")
                    .strip();
            assertThat(firstToken).hasSize(43);
            app = JavaProcess.start(
                    Launcher.class, tmp.resolve("app.log"), env, "--data-dir", data, "--schedule-interval", "1s");
            session.waitUntil(
                    "the window is shown",
                    () -> !session.visibleWindows("^leasesync$").isEmpty() || !app.isAlive());
            session.waitUntil("alice synced", () -> log().contains("for alice|course_sync ended: succeeded"));
            String icon = trayIcon();
            waitForIconState(icon, TrayState.UP_TO_DATE);

            // the operator revokes alice's sessions (an H2 data dir is one process's: stop, revoke, start)
            stop(serve);
            assertThat(cli(null, Map.of(), "users", "revoke", "alice", "--data-dir", serverDir.toString()))
                    .contains("revoked 1 session(s) of alice");
            serve = serve(serverDir, port, 2);
            // an edit made meanwhile, from the command line on the window's data directory
            cli(
                    null,
                    env,
                    "edit",
                    "--data-dir",
                    data,
                    "--user",
                    "alice",
                    "--scope",
                    "course_sync",
                    "--id",
                    "course-kept",
                    "--payload",
                    "{\"title\":\"Kept while signed out\"}");

            session.waitUntil(
                    "a sync of the window ended signed out", () -> log().contains("alice is signed out: no timer"));
            session.waitUntil("one notification", () -> displayed() == 1);
            waitForIconState(icon, TrayState.SIGNED_OUT);
            session.check("xdotool", "mousemove", "640", "790");
            long started = count("started for alice|");
            Thread.sleep(4000); // four timer ticks: none asks anything for alice
            assertThat(count("started for alice|"))
                    .as("no run for a signed-out account")
                    .isEqualTo(started);
            assertThat(log()).contains("schedule trigger for alice|course_sync skipped: signed out");
            assertThat(displayed()).isEqualTo(1);
            assertThat(log().lines()
                            .filter(l -> l.matches(".*notification \\d+ shown: .*"))
                            .toList())
                    .as("one notification, saying signed out")
                    .hasSize(1)
                    .allMatch(l -> l.endsWith(": signed out"));
            String window = session.visibleWindows("^leasesync$").get(0);
            int[] w = session.geometry(window);
            Screenshots.save(session, "screenshot-signed-out.png", w[0] - 8, w[1] - 40, w[2] + 16, w[3] + 48);

            // the notification opens the window at the card, whose Sign in has the keyboard: Space opens the dialog
            List<String> note = session.visibleWindows("^Dunst$");
            int[] g = session.geometry(note.get(0));
            session.check("xdotool", "mousemove", String.valueOf(g[0] + g[2] / 2), String.valueOf(g[1] + g[3] / 2));
            Thread.sleep(200);
            session.check("xdotool", "click", "1");
            session.waitUntil("at the card", () -> log().contains("window opened at the card of "));
            session.check(
                    "xdotool",
                    "windowactivate",
                    "--sync",
                    session.visibleWindows("^leasesync$").get(0));
            Thread.sleep(500);
            session.check("xdotool", "key", "space");
            String[] dialog = new String[1];
            session.waitUntil("the Sign in again dialog", () -> {
                List<String> d = session.visibleWindows("^Sign in again$");
                dialog[0] = d.isEmpty() ? null : d.get(0);
                return dialog[0] != null;
            });
            session.check("xdotool", "windowactivate", "--sync", dialog[0]);
            Thread.sleep(500);
            session.check("xdotool", "type", "--delay", "60", PASSWORD); // only the password is left to type
            int[] d = session.geometry(dialog[0]);
            Screenshots.save(session, "screenshot-sign-in.png", d[0] - 8, d[1] - 40, d[2] + 16, d[3] + 48);
            session.check("xdotool", "key", "Return");
            session.waitUntil(
                    "the dialog closed",
                    () -> session.visibleWindows("^Sign in again$").isEmpty());
            session.waitUntil("the kept edit arrived on the server", () -> {
                try {
                    return aliceCourses(url).contains("course-kept");
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(aliceCourses(url)).contains("Kept while signed out");
            waitForIconState(icon, TrayState.UP_TO_DATE);
            String newToken = session.run(
                            "secret-tool", "lookup", "service", "leasesync", "server", url + "/", "user", "alice")
                    .strip();
            assertThat(newToken)
                    .as("the new session's token is in the keyring")
                    .hasSize(43)
                    .isNotEqualTo(firstToken);
            assertThat(read(tmp.resolve("data/accounts.json")))
                    .contains("\"token\" : \"keyring\"")
                    .doesNotContain(newToken);

            openTrayMenu(icon);
            choose(5, "Return"); // Quit leasesync
            assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(app.exitValue()).isZero();
        } finally {
            stop(serve);
        }
    }

    int displayed() {
        return Integer.parseInt(session.run("dunstctl", "count", "displayed").strip());
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "";
        }
    }
}
