package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.control.Button;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunRecord;
import org.leasesync.run.RunStatus;
import org.leasesync.run.TaskSource;
import org.leasesync.server.ReferenceServer;
import org.leasesync.server.faults.FaultSettings;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Double-clicking Retry (or a click as the automatic retry starts) must not land on
 * Cancel, which appears where Retry was and would cancel the run just started. The real
 * window, coordinator and embedded server; clicks through the robot at the button's screen point.
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class RetryDoubleClickUiTest {

    static final TaskKey ALICE_COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Backend backend;
    AppAssembly assembly;
    ReferenceServer server;

    @RegisterExtension
    final AppWindow window = new AppWindow();

    @Start
    void start(Stage stage) {
        var settings = UiTestSupport.settings(tmp.resolve("data"), Duration.ofHours(1), time);
        assembly = window.open(stage, settings);
        backend = window.backend();
        server = backend.embeddedServer().orElseThrow();
    }

    List<RunRecord> history() {
        return backend.runtime().store().history().history(ALICE_COURSES, 100);
    }

    /** The courses card shows "Last sync failed … — Retry" and the next sync will be slow enough to click into. */
    void failOnceThenSlow(FxRobot robot) {
        for (Scope s : Scope.values()) {
            waitUntil("card " + s + " settled", () -> {
                String t = text(robot, "#status-" + s.wireName());
                return !t.startsWith("Syncing") && !t.startsWith("Loading");
            });
        }
        waitUntil(
                "no local runs",
                () -> backend.runtime().coordinator().localRuns().isEmpty());
        server.faults().set(new FaultSettings(0, 0, 0, 0, 1)); // next request: 429
        robot.clickOn("#sync-course_sync");
        waitUntil("failed shown", () -> text(robot, "#status-course_sync").startsWith("Last sync failed"));
        waitUntil("Retry usable", () -> {
            Button retry = robot.lookup("#retry-course_sync").queryButton();
            return retry.isVisible() && !retry.isDisabled();
        });
        server.faults().setLatency(Duration.ofMillis(2500));
        laidOut();
    }

    /** Lets JavaFX lay out the card after its buttons changed (the next pulses), so bounds and clicks see it. */
    static void laidOut() {
        for (int i = 0; i < 3; i++) {
            org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
            org.testfx.util.WaitForAsyncUtils.sleep(20, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    Point2D centre(FxRobot robot, String id) {
        Bounds b = robot.lookup(id)
                .queryButton()
                .localToScreen(robot.lookup(id).queryButton().getBoundsInLocal());
        return new Point2D(b.getCenterX(), b.getCenterY());
    }

    /** The retry run ended as it would without the second click: not cancelled. */
    void assertRetryRunNotCancelled(FxRobot robot) {
        waitUntil("the retry run ended", () -> {
            RunRecord last = history().get(0);
            return last.firstSource() == TaskSource.RETRY && !last.isRunning();
        });
        RunRecord retryRun = history().get(0);
        assertThat(retryRun.status())
                .as("run %s: %s", retryRun.runId(), retryRun.error())
                .contains(RunStatus.SUCCEEDED);
        assertThat(history().stream().filter(r -> r.status().orElse(null) == RunStatus.CANCELLED))
                .isEmpty();
        waitUntil("up to date", () -> text(robot, "#status-course_sync").startsWith("Up to date"));
    }

    @Test
    void doubleClickingRetryDoesNotCancelTheRunItStarted(FxRobot robot) {
        failOnceThenSlow(robot);
        robot.doubleClickOn("#retry-course_sync");
        assertRetryRunNotCancelled(robot);
    }

    @Test
    void aSecondClickWhereRetryWasOnceTheRunShowsLandsOnNothingThatCancels(FxRobot robot) {
        failOnceThenSlow(robot);
        Point2D retryPoint = centre(robot, "#retry-course_sync");
        int before = history().size();
        robot.clickOn("#retry-course_sync");
        waitUntil("running shown", () -> text(robot, "#status-course_sync").startsWith("Syncing"));
        laidOut();
        robot.clickOn(retryPoint); // the second click of a slow double-click, on whatever is there now
        assertRetryRunNotCancelled(robot);
        // nor did it queue a follow-up ("Sync again after this" now stands where Retry was, not yet armed)
        robot.sleep(500);
        assertThat(history()).hasSize(before + 1);
        assertThat(backend.runtime().coordinator().localRuns()).isEmpty();
    }

    @Test
    void cancelNeverSitsWhereRetryWasAndWorksOnceArmed(FxRobot robot) {
        failOnceThenSlow(robot);
        Point2D retryPoint = centre(robot, "#retry-course_sync");
        Bounds retryBounds = robot.lookup("#retry-course_sync")
                .queryButton()
                .localToScreen(robot.lookup("#retry-course_sync").queryButton().getBoundsInLocal());
        robot.clickOn("#retry-course_sync");
        waitUntil(
                "Cancel shown",
                () -> robot.lookup("#cancel-course_sync").queryButton().isVisible());
        laidOut();
        Button cancel = robot.lookup("#cancel-course_sync").queryButton();
        Bounds cancelBounds = cancel.localToScreen(cancel.getBoundsInLocal());
        assertThat(cancelBounds.intersects(retryBounds))
                .as("Cancel %s over Retry's place %s", cancelBounds, retryBounds)
                .isFalse();
        assertThat(cancelBounds.contains(retryPoint)).isFalse();
        // once armed (after about a second), Cancel cancels
        waitUntil("Cancel armed", () -> !cancel.isDisabled());
        robot.clickOn("#cancel-course_sync");
        waitUntil("cancelled", () -> history().get(0).status().orElse(null) == RunStatus.CANCELLED);
        assertThat(history().get(0).firstSource()).isEqualTo(TaskSource.RETRY);
    }
}
