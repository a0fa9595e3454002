package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.notify.NotificationPolicy.Notice;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Notifications from the real coordinator's runs against the embedded server, through a recording
 * notifier (the real D-Bus path is tested by DbusNotifierTest and DesktopProcessTest).
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class NotificationUiTest {

    static final TaskKey COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Stage stage;
    BackgroundFixture f;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        if (f != null) {
            robot.interact(f.assembly::close);
            f.close();
        }
        robot.interact(() -> {
            if (!stage.isShowing()) {
                stage.show();
            }
        });
    }

    void open(FxRobot robot) {
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
        f.assembly.installTray();
        robot.clickOn("#sync-all");
        for (Scope s : Scope.values()) {
            waitUntil(
                    "card " + s + " up to date",
                    () -> text(robot, "#status-" + s.wireName()).startsWith("Up to date"));
        }
        waitUntil("notifier connected", () -> f.notifier.clicked != null);
    }

    void failOnce(FxRobot robot, int expectedInARow) {
        String button = expectedInARow == 1 ? "#sync-course_sync" : "#retry-course_sync";
        // the card shows its Retry a layout pass after it turned failed (CI once found it still hidden)
        waitUntil(
                button + " shown",
                () -> robot.lookup(button)
                        .tryQuery()
                        .map(n -> n.isVisible()
                                && (n.getParent() == null || n.getParent().isVisible()))
                        .orElse(false));
        robot.clickOn(button);
        waitUntil(
                "failed " + expectedInARow,
                () -> text(robot, "#status-course_sync").startsWith("Last sync failed")
                        && failedInARow(COURSES) == expectedInARow
                        && ended(COURSES));
    }

    long failedInARow(TaskKey key) {
        return f.backend.runtime().store().history().history(key, 20).stream()
                .takeWhile(r -> r.status().orElse(null) == org.leasesync.run.RunStatus.FAILED)
                .count();
    }

    /**
     * Whether the key's run has ended, not only recorded its end: the history shows "failed" a moment
     * before the run records the server's {@code Retry-After} and releases its lease, and a trigger in
     * that moment joins the ending run, or, once the clock has moved, meets a wait that starts later.
     */
    boolean ended(TaskKey key) {
        return !f.backend.runtime().coordinator().isRunningLocally(key);
    }

    @Test
    void threeFailuresInARowRaiseOneNotificationAndClickingItOpensTheWindowAtTheCard(FxRobot robot) {
        open(robot);
        f.backend
                .embeddedServer()
                .orElseThrow()
                .faults()
                .set(new FaultSettings(0, 0, 0, 0, 1000)); // every request: 429
        failOnce(robot, 1);
        failOnce(robot, 2);
        robot.sleep(500);
        assertThat(f.notifier.shown).isEmpty();
        failOnce(robot, 3);
        waitUntil("one notification", () -> f.notifier.shown.size() == 1);
        Notice n = f.notifier.shown.get(0);
        assertThat(n.key()).isEqualTo(COURSES);
        assertThat(n.title()).isEqualTo("Courses: sync keeps failing");
        assertThat(n.body()).startsWith("It failed 3 times in a row. Last error: the sync server is busy (HTTP 429)");
        failOnce(robot, 4);
        robot.sleep(700);
        assertThat(f.notifier.shown).hasSize(1); // one per episode
        assertThat(f.notifier.opened()).isEqualTo(1);

        // clicking it: the hidden window opens on the Sync tab with that card in sight and focused
        robot.interact(() -> {
            ((TabPane) stage.getScene().lookup(".tab-pane")).getSelectionModel().select(1);
            stage.hide();
        });
        f.notifier.click(COURSES);
        waitUntil("window open", stage::isShowing);
        waitUntil(
                "card highlighted",
                () -> stage.getScene()
                        .lookup("#card-course_sync")
                        .getStyleClass()
                        .contains("highlight"));
        assertThat(((TabPane) stage.getScene().lookup(".tab-pane"))
                        .getSelectionModel()
                        .getSelectedItem()
                        .getId())
                .isEqualTo("tab-sync");
        waitUntil("its Sync now button focused", () -> {
            Node focus = stage.getScene().getFocusOwner();
            return focus != null && "sync-course_sync".equals(focus.getId());
        });
        assertThat(stage.getScene().lookup("#card-message_sync").getStyleClass())
                .doesNotContain("highlight");

        // a success ends the episode and withdraws the "keeps failing" notification still on screen
        f.backend.embeddedServer().get().faults().clear();
        robot.clickOn("#retry-course_sync");
        waitUntil("up to date", () -> text(robot, "#status-course_sync").startsWith("Up to date"));
        waitUntil("the notification withdrawn", () -> f.notifier.withdrawn.equals(List.of(1L)));
        assertThat(f.notifier.isOpen(1)).isFalse();
        // a new streak notifies again
        f.backend.embeddedServer().get().faults().set(new FaultSettings(0, 0, 0, 0, 1000));
        failOnce(robot, 1);
        failOnce(robot, 2);
        failOnce(robot, 3);
        waitUntil("a second notification", () -> f.notifier.shown.size() == 2);
        assertThat(f.notifier.opened()).isEqualTo(2);
        f.notifier.dismiss(2);
        f.backend.embeddedServer().get().faults().clear();
        robot.clickOn("#retry-course_sync");
        waitUntil("up to date", () -> text(robot, "#status-course_sync").startsWith("Up to date"));
        f.backend.embeddedServer().get().faults().set(new FaultSettings(0, 0, 0, 0, 1000));
        failOnce(robot, 1);
        failOnce(robot, 2);
        failOnce(robot, 3);
        waitUntil("a new notification once the old one was dismissed", () -> f.notifier.opened() == 3);
    }

    @Test
    void aServerFailingForEveryScopeRaisesOneNotificationNamingThemAll(FxRobot robot) {
        open(robot);
        f.backend.embeddedServer().orElseThrow().faults().set(new FaultSettings(0, 0, 0, 0, 1000));
        for (int i = 1; i <= 3; i++) {
            int n = i;
            // each 429 asks for a second (Retry-After: 1), and Sync now honours it like every trigger
            time.elapse(Duration.ofSeconds(2));
            robot.clickOn("#sync-all");
            for (Scope s : Scope.values()) {
                TaskKey key = new TaskKey("alice", s);
                waitUntil(s + " failed " + n, () -> failedInARow(key) == n && ended(key));
            }
        }
        waitUntil("every scope in the notification", () -> f.notifier.shown.size() == 3);
        robot.sleep(700);
        assertThat(f.notifier.opened()).isEqualTo(1);
        Notice last = f.notifier.open.get(1L);
        assertThat(last.title())
                .endsWith(": sync keeps failing")
                .contains("Courses")
                .contains("Messages")
                .contains("Settings backup");
        assertThat(last.body())
                .startsWith("Each failed at least 3 times in a row. Last error: the sync server is busy (HTTP 429)");
    }

    @Test
    void switchedOffInTheMenuNothingIsShown(FxRobot robot) {
        open(robot);
        assertThat(f.assembly
                        .desktopViewModel()
                        .notificationsAvailableProperty()
                        .get())
                .isTrue();
        robot.clickOn("#app-menu");
        robot.clickOn("#menu-notifications");
        waitUntil(
                "saved",
                () -> PauseUiTest.read(tmp.resolve("data/settings.json")).contains("\"notifications\" : false"));
        f.backend.embeddedServer().orElseThrow().faults().set(new FaultSettings(0, 0, 0, 0, 1000));
        failOnce(robot, 1);
        failOnce(robot, 2);
        failOnce(robot, 3);
        robot.sleep(1000);
        assertThat(f.notifier.shown).isEmpty();
    }
}
