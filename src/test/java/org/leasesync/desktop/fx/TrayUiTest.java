package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javafx.event.Event;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.Pause;
import org.leasesync.desktop.tray.TrayPort;
import org.leasesync.desktop.tray.TrayState;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunRecord;
import org.leasesync.run.TaskSource;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The window with a tray (a recording one: the real AWT tray is tested under Xvfb by
 * DesktopProcessTest) and without one; the start-at-login menu.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class TrayUiTest {

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Stage stage;
    BackgroundFixture f;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    void open(FxRobot robot, boolean tray, Duration scheduleInterval) {
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), scheduleInterval, time),
                    time,
                    tray,
                    tmp.resolve("config"),
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            f.assembly.show();
        });
        assertThat(f.assembly.installTray()).isEqualTo(tray); // off the FX thread, as the app does
        robot.clickOn("#sync-all");
        for (Scope s : Scope.values()) {
            waitUntil(
                    "card " + s + " up to date",
                    () -> text(robot, "#status-" + s.wireName()).startsWith("Up to date"));
        }
        waitUntil(
                "no local runs",
                () -> f.backend.runtime().coordinator().localRuns().isEmpty());
    }

    void close(FxRobot robot) {
        if (f != null) {
            BackgroundFixture old = f;
            robot.interact(old.assembly::close);
            old.close();
            f = null;
        }
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        close(robot);
        robot.interact(() -> {
            if (!stage.isShowing()) {
                stage.show();
            }
        });
    }

    /**
     * Asks the window to close as the window manager's close button does. Either way the window is
     * hidden (JavaFX's own handler closes it when nobody objects); what differs is whether JavaFX may
     * end with it (implicit exit).
     */
    void requestClose(FxRobot robot) {
        robot.interact(() -> Event.fireEvent(stage, new WindowEvent(stage, WindowEvent.WINDOW_CLOSE_REQUEST)));
    }

    @Test
    void closingHidesToTheTrayTheTimerKeepsRunningAndTheTrayMenuActs(FxRobot robot) {
        open(robot, true, Duration.ofSeconds(1));
        assertThat(f.implicitExit).containsExactly(false); // JavaFX must outlive its hidden window
        requestClose(robot);
        assertThat(stage.isShowing()).isFalse();
        assertThat(PulseGateTest.pulseRunning())
                .as("hidden in the tray: JavaFX's pulse is stopped")
                .isFalse();
        assertThat(f.exits.get()).isZero();
        TaskKey backup = TaskKey.of("alice", "backup");
        int before = f.backend.runtime().store().history().history(backup, 100).size();
        // The timer skips a key synced within most of its interval (RecentSyncGate, on the injected
        // monotonic clock): move that clock past it, as the real one moves.
        time.elapse(Duration.ofSeconds(5));
        waitUntil(
                "the timer syncs with the window hidden",
                () -> f.backend.runtime().store().history().history(backup, 100).stream()
                                .limit(5)
                                .anyMatch(r -> r.firstSource() == TaskSource.SCHEDULE)
                        && f.backend
                                        .runtime()
                                        .store()
                                        .history()
                                        .history(backup, 100)
                                        .size()
                                > before);

        f.tray.menu.open().run();
        waitUntil("window open again", stage::isShowing);
        assertThat(PulseGateTest.pulseRunning())
                .as("shown again: JavaFX's pulse runs")
                .isTrue();

        f.tray.menu.pause().accept(Pause.Option.UNTIL_RESUMED);
        waitUntil("tray paused", () -> f.tray.last().paused() && f.tray.last().state() == TrayState.PAUSED);
        assertThat(f.tray.last().tooltip()).isEqualTo("Paused · last successful sync " + lastSuccessTime());
        waitUntil("cards paused", () -> text(robot, "#status-course_sync").equals("Paused until you resume"));
        f.tray.menu.resume().run();
        waitUntil("tray resumed", () -> !f.tray.last().paused() && f.tray.last().state() != TrayState.PAUSED);

        f.backend.embeddedServer().orElseThrow().faults().setLatency(Duration.ofMillis(1200));
        TaskKey courses = TaskKey.of("alice", "course_sync");
        int manualBefore = manualRuns(courses);
        f.tray.menu.syncAll().run();
        waitUntil("tray shows syncing", () -> f.tray.last().state() == TrayState.SYNCING);
        assertThat(f.tray.last().tooltip()).startsWith("Syncing · last successful sync ");
        waitUntil("a manual run of every scope", () -> manualRuns(courses) > manualBefore);
        f.backend.embeddedServer().get().faults().setLatency(Duration.ZERO);

        assertThat(f.exits.get()).isZero();
        f.tray.menu.quit().run();
        waitUntil("quit asked for", () -> f.exits.get() == 1);
    }

    int manualRuns(TaskKey key) {
        return (int) f.backend.runtime().store().history().history(key, 200).stream()
                .filter(r -> r.firstSource() == TaskSource.MANUAL)
                .count();
    }

    String lastSuccessTime() {
        java.time.Instant last = null;
        for (Scope s : Scope.values()) {
            java.time.Instant t = f.backend
                    .runtime()
                    .store()
                    .history()
                    .lastSucceeded(new TaskKey("alice", s))
                    .flatMap(RunRecord::endedAt)
                    .orElseThrow();
            last = last == null || t.isAfter(last) ? t : last;
        }
        return new Messages(BackgroundFixture.LOCALE, BackgroundFixture.ZONE).time(last);
    }

    @Test
    void theTrayIconShowsTheWorstStateOfTheAccount(FxRobot robot) {
        open(robot, true, Duration.ofHours(1));
        waitUntil("up to date", () -> f.tray.last().state() == TrayState.UP_TO_DATE);
        assertThat(f.tray.last().tooltip()).isEqualTo("Up to date · last successful sync 10:00");
        f.backend.embeddedServer().orElseThrow().faults().set(new FaultSettings(0, 0, 0, 0, 1)); // next request: 429
        robot.clickOn("#sync-message_sync");
        waitUntil("tray shows the failure", () -> f.tray.last().state() == TrayState.FAILED);
        assertThat(f.tray.last().tooltip()).isEqualTo("Last sync failed · last successful sync 10:00");
        assertThat(text(robot, "#status-course_sync")).startsWith("Up to date"); // one card failing is enough
        robot.clickOn("#retry-message_sync");
        waitUntil("up to date again", () -> f.tray.last().state() == TrayState.UP_TO_DATE);
    }

    @Test
    void withoutATrayClosingQuitsAndTheWindowSaysSoOnce(FxRobot robot) throws Exception {
        open(robot, false, Duration.ofHours(1));
        waitUntil(
                "notice",
                () -> text(robot, "#notice")
                        .equals("This desktop has no system tray: closing the window "
                                + "quits leasesync, and nothing syncs until you open it again."));
        requestClose(robot);
        assertThat(stage.isShowing()).isFalse();
        assertThat(f.implicitExit).isEmpty(); // so JavaFX ends with its last window: closing quits
        waitUntil(
                "remembered",
                () -> PauseUiTest.read(tmp.resolve("data/settings.json")).contains("\"noTrayNoticeShown\" : true"));

        close(robot);
        robot.interact(stage::show);
        open(robot, false, Duration.ofHours(1));
        robot.sleep(300);
        assertThat(text(robot, "#notice")).isEmpty();
        assertThat(robot.lookup("#notice").query().isVisible()).isFalse();
    }

    @Test
    void closingTheWindowBeforeTheTrayAnswersIsNotUndoneByTheAnswer(FxRobot robot) {
        // The tray's answer comes from the tray-start thread a moment after the cards; a user who
        // closes the window before it, on a desktop without a tray, has quit (DesktopProcessTest once
        // saw the late answer reopen the window: "started hidden, no tray to come back from").
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), Duration.ofHours(1), time),
                    time,
                    false,
                    tmp.resolve("config"),
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            f.assembly.show();
        });
        requestClose(robot);
        assertThat(stage.isShowing()).isFalse();
        assertThat(f.assembly.installTray()).isFalse(); // off the FX thread, as the app does; it posts the answer
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertThat(stage.isShowing())
                .as("the late 'no tray' answer must not reopen a window the user closed")
                .isFalse();
        assertThat(f.implicitExit).isEmpty(); // JavaFX ends with its last window: closing quits
    }

    @Test
    void closingTheWindowBeforeTheTrayIconIsInPlaceQuitsWhenItArrives(FxRobot robot) {
        // With a tray host the icon comes a moment after the cards; a close before it was a quit
        // (JavaFX would end with its last window), so the late icon must not keep the app running hidden.
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), Duration.ofHours(1), time),
                    time,
                    true,
                    tmp.resolve("config"),
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            f.assembly.show();
        });
        requestClose(robot);
        assertThat(stage.isShowing()).isFalse();
        assertThat(f.assembly.installTray()).isTrue();
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertThat(f.exits).as("the close before the icon was a quit").hasValue(1);
        assertThat(f.implicitExit).as("tray mode never switched on").isEmpty();
        assertThat(stage.isShowing()).isFalse();
    }

    @Test
    void closingTheWindowOnceTheIconIsSeenHidesItThereBeforeTheAnswerArrives(FxRobot robot) {
        // The tray host shows the icon while the tray's answer is still on its way to the FX thread;
        // a user (or a test) who sees the icon and closes the window at once means "to the tray".
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), Duration.ofHours(1), time),
                    time,
                    true,
                    tmp.resolve("config"),
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            f.assembly.show();
        });
        f.tray.install(
                new TrayPort.TrayMenu(() -> {}, () -> {}, o -> {}, () -> {}, () -> {}, () -> {}),
                new TrayPort.TrayView(TrayState.UP_TO_DATE, "", false)); // the icon is up; no answer yet
        requestClose(robot);
        assertThat(stage.isShowing()).isFalse();
        assertThat(f.implicitExit)
                .as("JavaFX must outlive the window hidden to the icon")
                .containsExactly(false);
        assertThat(f.assembly.installTray()).isTrue();
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertThat(f.exits).as("a close to a visible icon is not a quit").hasValue(0);
        assertThat(stage.isShowing()).isFalse();
        assertThat(f.implicitExit).doesNotContain(true);
    }

    @Test
    void startAtLoginFromTheMenuWritesAndRemovesTheAutostartEntry(FxRobot robot) {
        open(robot, true, Duration.ofHours(1));
        Path entry = tmp.resolve("config/autostart/leasesync.desktop");
        robot.clickOn("#app-menu");
        robot.clickOn("#menu-autostart");
        waitUntil("entry written", () -> Files.exists(entry));
        assertThat(PauseUiTest.read(entry))
                .contains("Exec=env LEASESYNC_START_HIDDEN=1 /opt/leasesync/bin/leasesync\n");
        waitUntil(
                "setting saved",
                () -> PauseUiTest.read(tmp.resolve("data/settings.json")).contains("\"startAtLogin\" : true"));
        assertThat(f.assembly.desktopViewModel().startAtLoginProperty().get()).isTrue();
        robot.clickOn("#app-menu");
        robot.clickOn("#menu-autostart");
        waitUntil("entry removed", () -> !Files.exists(entry));
        waitUntil(
                "setting saved",
                () -> PauseUiTest.read(tmp.resolve("data/settings.json")).contains("\"startAtLogin\" : false"));
    }

    @Test
    void quitFromTheWindowMenuEndsTheApp(FxRobot robot) {
        open(robot, true, Duration.ofHours(1));
        robot.clickOn("#app-menu");
        robot.clickOn("#menu-quit");
        waitUntil("quit asked for", () -> f.exits.get() == 1);
    }
}
