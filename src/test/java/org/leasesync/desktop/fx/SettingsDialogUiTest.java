package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Labeled;
import javafx.scene.control.TextInputControl;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.client.AccountService;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Language;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.ServerConfig;
import org.leasesync.server.demo.Seed;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The settings dialog on the real window: opened from the window's menu and the tray's, saved to
 * settings.json, invalid values refused with nothing saved, intervals applied to the running timer,
 * the command line winning for its launch; no token field — the account shown with its Sign in
 * button — and a token an older version kept in settings.json moved out of it into a signed-in
 * account, every other setting kept.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class SettingsDialogUiTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    Stage stage;
    Backend backend;
    AppAssembly assembly;
    org.leasesync.testing.RecordingTray tray = new org.leasesync.testing.RecordingTray(true);

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    void open(FxRobot robot, Duration scheduleInterval, Set<String> fromCommandLine) {
        open(robot, scheduleInterval, fromCommandLine, TimeSource.system());
    }

    void open(FxRobot robot, Duration scheduleInterval, Set<String> fromCommandLine, TimeSource time) {
        Backend.AppSettings s = UiTestSupport.settings(tmp.resolve("data"), scheduleInterval, time);
        robot.interact(() -> {
            // accounts without a session bus: a moved token goes to the owner-only file, never a real keyring
            backend = Backend.start(s, new AccountService(tmp.resolve("data"), Map.of(), TimeSource.system()));
            HostDesktop parts = new HostDesktop(
                    new Messages(Locale.UK, BackgroundFixture.ZONE),
                    tray,
                    clicked -> Notifier.NONE,
                    new Autostart(
                            tmp.resolve("config"),
                            tmp.resolve("config").resolveSibling("share"),
                            Optional.of(List.of("/bin/true"))),
                    exit -> {},
                    () -> {},
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            assembly = new AppAssembly(
                    backend, new StartOptions(s, fromCommandLine, Locale.UK), stage, Platform::runLater, parts);
            assembly.show();
        });
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        if (assembly != null) {
            robot.interact(assembly::close);
            backend.close();
        }
    }

    Path file() {
        return tmp.resolve("data").resolve("settings.json");
    }

    void openFromTheMenu(FxRobot robot) {
        robot.clickOn("#app-menu");
        robot.clickOn("#menu-settings");
        waitUntil(
                "the dialog is open",
                () -> robot.lookup("#settings-save").tryQuery().isPresent());
    }

    void type(FxRobot robot, String id, String value) {
        robot.interact(() -> robot.lookup(id).queryAs(TextInputControl.class).setText(value));
    }

    boolean dialogShowing() {
        return assembly.settingsDialogShowing();
    }

    @Test
    void aShorterScheduleIntervalAppliesToTheRunningTimerAndIsSavedAsReadableJson(FxRobot robot) throws Exception {
        open(robot, Duration.ofHours(1), Set.of());
        openFromTheMenu(robot);
        assertThat(robot.lookup("#settings-schedule-interval")
                        .queryAs(TextInputControl.class)
                        .getText())
                .isEqualTo("1h");
        assertThat(robot.lookup("#settings-schedule-interval-note").tryQuery()).isEmpty();
        type(robot, "#settings-schedule-interval", "1s");
        type(robot, "#settings-foreground-min-interval", "0s");
        robot.interact(() ->
                robot.lookup("#settings-language").<Language>queryComboBox().setValue(Language.CHINESE_SIMPLIFIED));
        robot.clickOn("#settings-save");
        waitUntil("the dialog closed", () -> !dialogShowing());

        JsonNode saved = JSON.readTree(file().toFile());
        assertThat(saved.get("scheduleInterval").asText()).isEqualTo("1s");
        assertThat(saved.get("foregroundMinInterval").asText()).isEqualTo("0s");
        assertThat(saved.get("language").asText()).isEqualTo("zh-CN");
        assertThat(saved.has("server")).isFalse();
        assertThat(Files.readString(file())).contains("\n  \"scheduleInterval\" : \"1s\""); // pretty-printed
        assertThat(assembly.scheduleInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(text(robot, "#notice")).isEqualTo("Settings saved. A new language applies at the next start.");

        TaskKey key = TaskKey.of("alice", "message_sync");
        waitUntil(
                "a schedule run on the new interval, without a restart",
                () -> backend.runtime().store().runs().history(key, 50).stream()
                        .anyMatch(r -> r.firstSource() == TaskSource.SCHEDULE
                                || r.mergedSources().contains(TaskSource.SCHEDULE)));

        // the next start with no flags uses the file
        StartOptions next = StartOptions.read(
                UiTestSupport.settings(tmp.resolve("data"), Duration.ofMinutes(5), TimeSource.system()), Set.of());
        assertThat(next.settings().scheduleInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(next.settings().foregroundMinInterval()).isEqualTo(Duration.ZERO);
        assertThat(next.locale()).isEqualTo(Locale.SIMPLIFIED_CHINESE);
    }

    @Test
    void invalidValuesAreRefusedBesideTheirFieldsAllAtOnceWithoutMovingTheButtonsAndNothingIsSaved(FxRobot robot)
            throws Exception {
        open(robot, Duration.ofHours(1), Set.of());
        openFromTheMenu(robot);
        javafx.geometry.Point2D saveBefore = screenBounds(robot, "#settings-save");
        type(robot, "#settings-schedule-interval", "500ms");
        robot.clickOn("#settings-save");
        assertThat(text(robot, "#settings-schedule-interval-error"))
                .isEqualTo("Schedule interval: '500ms' is not "
                        + "allowed. Enter a duration of at least 1s, e.g. 30s, 5m or 1h. Nothing was saved.");
        assertThat(text(robot, "#settings-foreground-min-interval-error")).isEmpty();
        assertThat(marked(robot, "#settings-schedule-interval")).isTrue();
        assertThat(marked(robot, "#settings-foreground-min-interval")).isFalse();
        assertThat(dialogShowing()).isTrue();
        assertThat(file()).doesNotExist();

        // both wrong: both said at once, each beside its field
        type(robot, "#settings-foreground-min-interval", "soon");
        robot.clickOn("#settings-save");
        assertThat(text(robot, "#settings-schedule-interval-error")).startsWith("Schedule interval: '500ms'");
        assertThat(text(robot, "#settings-foreground-min-interval-error"))
                .startsWith("Foreground minimum interval: " + "'soon' is not allowed. Enter a duration of 0s or more");
        assertThat(marked(robot, "#settings-foreground-min-interval")).isTrue();
        assertThat(screenBounds(robot, "#settings-save"))
                .as("Save did not move")
                .isEqualTo(saveBefore);

        // editing a field clears its error and its mark, the other stays
        type(robot, "#settings-schedule-interval", "10m");
        assertThat(text(robot, "#settings-schedule-interval-error")).isEmpty();
        assertThat(marked(robot, "#settings-schedule-interval")).isFalse();
        assertThat(text(robot, "#settings-foreground-min-interval-error")).isNotEmpty();
        robot.clickOn("#settings-save");
        assertThat(text(robot, "#settings-foreground-min-interval-error")).startsWith("Foreground minimum interval");
        assertThat(screenBounds(robot, "#settings-save"))
                .as("Save did not move")
                .isEqualTo(saveBefore);
        assertThat(file()).doesNotExist();
        assertThat(assembly.scheduleInterval()).isEqualTo(Duration.ofHours(1)); // nothing applied either

        robot.clickOn("#settings-cancel");
        waitUntil("the dialog closed", () -> !dialogShowing());
        assertThat(file()).doesNotExist();
        openFromTheMenu(robot);
        assertThat(text(robot, "#settings-foreground-min-interval-error"))
                .as("reopened: the last refusal is gone")
                .isEmpty();
        robot.clickOn("#settings-cancel");
    }

    @Test
    void theSavedNoticeClearsItselfByTheClockAndCanBeDismissed(FxRobot robot) throws Exception {
        ManualTime time = new ManualTime();
        open(robot, Duration.ofHours(1), Set.of(), time);
        openFromTheMenu(robot);
        robot.interact(() -> robot.lookup("#settings-language")
                .queryAs(javafx.scene.control.ComboBox.class)
                .setValue(Language.CHINESE_SIMPLIFIED));
        robot.clickOn("#settings-save");
        waitUntil("the dialog closed", () -> !dialogShowing());
        assertThat(text(robot, "#notice")).isEqualTo("Settings saved. A new language applies at the next start.");

        time.elapse(BackgroundViewModel.TRANSIENT_NOTICE.minusSeconds(1));
        // two refreshes' check of the notice, run here rather than slept for on the refresh timer (which
        // under load may not have ticked at all): its clearing is posted to the FX thread, and the read
        // below runs there after it. Not due yet, so it stays.
        for (int i = 0; i < 2; i++) {
            assembly.desktopViewModel().tick();
        }
        assertThat(text(robot, "#notice")).isNotEmpty();
        time.elapse(Duration.ofSeconds(1));
        waitUntil(
                "the notice cleared itself",
                () -> text(robot, "#notice").isEmpty()
                        && !robot.lookup("#notice-dismiss").query().getParent().isVisible());

        openFromTheMenu(robot);
        robot.interact(() -> robot.lookup("#settings-language")
                .queryAs(javafx.scene.control.ComboBox.class)
                .setValue(Language.ENGLISH));
        robot.clickOn("#settings-save");
        waitUntil("the dialog closed", () -> !dialogShowing());
        assertThat(text(robot, "#notice")).startsWith("Settings saved.");
        robot.clickOn("#notice-dismiss");
        assertThat(text(robot, "#notice")).isEmpty();
    }

    private static boolean marked(FxRobot robot, String id) {
        return robot.lookup(id).query().getPseudoClassStates().contains(FieldErrors.DANGER);
    }

    /** Where a node's layout box sits on the screen (its focus ring, which grows when clicked, left out). */
    private static javafx.geometry.Point2D screenBounds(FxRobot robot, String id) {
        javafx.scene.Node n = robot.lookup(id).query();
        return n.localToScreen(
                n.getLayoutBounds().getMinX(), n.getLayoutBounds().getMinY());
    }

    @Test
    void theDialogHasNoTokenFieldButTheAccountShownAndItsSignInButton(FxRobot robot) throws Exception {
        open(robot, Duration.ofHours(1), Set.of());
        openFromTheMenu(robot);
        assertThat(robot.lookup("#settings-token").tryQuery()).isEmpty();
        assertThat(robot.lookup("#settings-servers").tryQuery()).isEmpty();
        assertThat(text(robot, "#settings-account"))
                .isEqualTo("Nobody: the built-in demo server (its users are at the top right)");
        assertThat(robot.lookup("#settings-sign-in").queryButton().getText()).isEqualTo("Sign in…");
        robot.clickOn("#settings-sign-in");
        waitUntil(
                "the Sign in dialog over the settings",
                () -> assembly.accounts().dialogShowing()
                        && robot.lookup("#signin-submit").tryQuery().isPresent());
        robot.clickOn("#signin-cancel");
        waitUntil("the Sign in dialog closed", () -> !assembly.accounts().dialogShowing());
        assertThat(dialogShowing()).as("the settings stay open under it").isTrue();
    }

    @Test
    void aTokenAnOlderVersionKeptInSettingsJsonBecomesASignedInAccountAndLeavesTheFile(FxRobot robot) throws Exception {
        ReferenceServer remote = ReferenceServer.start(ServerConfig.defaults().withSeed(Seed.NONE));
        try {
            String token = remote.tokenFor("bob"); // a session from before passwords: bob has none to sign in with
            Files.createDirectories(file().getParent());
            Files.writeString(
                    file(),
                    "{ \"fromANewerVersion\" : { \"x\" : 1 }, \"scheduleInterval\" : \"2h\",\n"
                            + "  \"server\" : { \"urls\" : [ \"" + remote.baseUrl()
                            + "/\" ], \"user\" : \"bob\", \"token\" : \""
                            + token + "\" } }\n");
            open(robot, Duration.ofHours(1), Set.of());

            JsonNode saved = JSON.readTree(file().toFile());
            assertThat(saved.has("server")).isFalse();
            assertThat(Files.readString(file())).doesNotContain(token);
            assertThat(saved.get("fromANewerVersion").get("x").asInt())
                    .as("unknown keys kept")
                    .isEqualTo(1);
            assertThat(saved.get("scheduleInterval").asText()).isEqualTo("2h");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file())))
                    .isEqualTo("rw-------");
            Path tokens = tmp.resolve("data/credentials/tokens.json");
            assertThat(Files.readString(tokens)).contains(token);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokens)))
                    .isEqualTo("rw-------");
            assertThat(Files.readString(tmp.resolve("data/accounts.json")))
                    .contains("\"bob\"")
                    .doesNotContain(token);

            // this start already runs as bob, on his server, with the moved token
            waitUntil(
                    "the window shows bob",
                    () -> "bob".equals(assembly.viewModel().currentUser()));
            robot.clickOn("#sync-course_sync");
            waitUntil(
                    "bob synced with his server",
                    () -> text(robot, "#status-course_sync").startsWith("Up to date"));
            assertThat(text(robot, "#notice"))
                    .isEqualTo("Your settings file held the session token of bob on "
                            + remote.baseUrl() + "/ in clear; it is now kept in the owner-only file " + tokens
                            + " and the "
                            + "settings file no longer holds it. If a copy of that file went anywhere (a backup, another "
                            + "machine), sign out and sign in again to end that session.");

            openFromTheMenu(robot);
            assertThat(text(robot, "#settings-account"))
                    .isEqualTo("bob on " + remote.baseUrl()
                            + "/ · session token in the owner-only token file (no desktop keyring)");
            assertThat(robot.lookup("#settings-sign-in").queryButton().getText())
                    .isEqualTo("Add account…");
            assertThat(allTexts()).noneMatch(t -> t.contains(token));
            robot.clickOn("#settings-cancel");
        } finally {
            if (assembly != null) {
                robot.interact(assembly::close);
                backend.close();
                assembly = null;
            }
            remote.close();
        }
    }

    @Test
    void aValueGivenOnTheCommandLineWinsForThisLaunchAndTheDialogSaysSo(FxRobot robot) throws Exception {
        open(robot, Duration.ofSeconds(90), Set.of(StartOptions.SCHEDULE_INTERVAL));
        openFromTheMenu(robot);
        assertThat(text(robot, "#settings-schedule-interval-note"))
                .isEqualTo("--schedule-interval 90s is in force for "
                        + "this launch (command line); this value applies when leasesync starts without it.");
        assertThat(robot.lookup("#settings-foreground-min-interval-note").tryQuery())
                .isEmpty();
        type(robot, "#settings-schedule-interval", "20m");
        type(robot, "#settings-foreground-min-interval", "5m");
        robot.clickOn("#settings-save");
        waitUntil("the dialog closed", () -> !dialogShowing());
        assertThat(JSON.readTree(file().toFile()).get("scheduleInterval").asText())
                .isEqualTo("20m");
        assertThat(assembly.scheduleInterval()).isEqualTo(Duration.ofSeconds(90)); // the flag still wins

        // a later start: with the flag, the flag; without it, the file
        Backend.AppSettings cli =
                UiTestSupport.settings(tmp.resolve("data"), Duration.ofSeconds(90), TimeSource.system());
        assertThat(StartOptions.read(cli, Set.of(StartOptions.SCHEDULE_INTERVAL))
                        .settings()
                        .scheduleInterval())
                .isEqualTo(Duration.ofSeconds(90));
        assertThat(StartOptions.read(cli, Set.of()).settings().scheduleInterval())
                .isEqualTo(Duration.ofMinutes(20));
        assertThat(StartOptions.read(cli, Set.of(StartOptions.SCHEDULE_INTERVAL))
                        .settings()
                        .foregroundMinInterval())
                .isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void notificationsAndStartAtLoginAreSavedFromTheDialog(FxRobot robot) throws Exception {
        open(robot, Duration.ofHours(1), Set.of());
        openFromTheMenu(robot);
        robot.clickOn("#settings-notifications");
        robot.clickOn("#settings-autostart");
        robot.clickOn("#settings-save");
        waitUntil("saved", () -> {
            try {
                JsonNode s = JSON.readTree(file().toFile());
                return !s.get("notifications").asBoolean()
                        && s.get("startAtLogin").asBoolean();
            } catch (java.io.IOException e) {
                return false;
            }
        });
        assertThat(tmp.resolve("config/autostart/leasesync.desktop")).exists();
        assertThat(assembly.desktopViewModel().notificationsProperty().get()).isFalse();
    }

    /** Every text of every showing window: labels, buttons, fields, prompts. */
    static List<String> allTexts() {
        List<String> out = new java.util.ArrayList<>();
        for (Window w : Window.getWindows()) {
            if (w.isShowing() && w.getScene() != null) {
                collect(w.getScene().getRoot(), out);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static void collect(Node n, List<String> out) {
        if (n instanceof Labeled l && l.getText() != null) {
            out.add(l.getText());
        }
        if (n instanceof TextInputControl t) {
            out.add(t.getText() == null ? "" : t.getText());
            out.add(t.getPromptText() == null ? "" : t.getPromptText());
        }
        if (n instanceof ComboBox<?> c && c.getValue() != null) {
            out.add(
                    c.getConverter() == null
                            ? c.getValue().toString()
                            : ((ComboBox<Object>) c).getConverter().toString(c.getValue()));
        }
        if (n instanceof Parent p) {
            p.getChildrenUnmodifiable().forEach(ch -> collect(ch, out));
        }
    }
}
