package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ProgressIndicator;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.server.ReferenceServer;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** A running card's progress bar: indeterminate while pulling, n of the outbox while pushing, gone after. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class ProgressUiTest {

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

    void settle(FxRobot robot) {
        for (Scope s : Scope.values()) {
            waitUntil("card " + s + " settled", () -> {
                String t = text(robot, "#status-" + s.wireName());
                return !t.startsWith("Syncing") && !t.startsWith("Loading");
            });
        }
        waitUntil(
                "no local runs",
                () -> backend.runtime().coordinator().localRuns().isEmpty());
    }

    @Test
    void theBarIsIndeterminateWhilePullingThenCountsPushedChangesOfTheOutbox(FxRobot robot) {
        settle(robot);
        // pull the demo server's records first: edits made before any pull are based on no version and
        // would come back as conflicts with the seeded records (the card then says so, not "Up to date")
        robot.clickOn("#sync-course_sync");
        waitUntil("the first sync", () -> text(robot, "#status-course_sync").startsWith("Up to date"));
        settle(robot);
        ProgressBar bar = robot.lookup("#progress-course_sync").queryAs(ProgressBar.class);
        javafx.scene.Node row = robot.lookup("#progress-row-course_sync").query();
        assertThat(UiTestSupport.onFx(row::isVisible)).isFalse();
        for (int i = 1; i <= 3; i++) {
            backend.runtime().edits().addEdit(ALICE_COURSES, "course-" + i, "{\"title\":\"T" + i + "\"}", false);
        }
        // every value the bar and its text take, as the FX thread sets them
        List<String> seen = new CopyOnWriteArrayList<>();
        robot.interact(() -> {
            bar.progressProperty().addListener((o, a, b) -> seen.add("bar " + b));
            robot.lookup("#progress-text-course_sync")
                    .queryLabeled()
                    .textProperty()
                    .addListener((o, a, b) -> seen.add("text " + b));
        });
        server.faults().setLatency(Duration.ofMillis(700));
        robot.clickOn("#sync-course_sync");
        waitUntil(
                "bar shown while pulling",
                () -> UiTestSupport.onFx(
                        () -> row.isVisible() && bar.getProgress() == ProgressIndicator.INDETERMINATE_PROGRESS));
        assertThat(text(robot, "#progress-text-course_sync"))
                .isIn("Starting…", "Pulling…", "Pulled 1 page · no records", "Pulled 1 page · 1 record");
        waitUntil(
                "pushing counted",
                () -> text(robot, "#progress-text-course_sync").equals("Pushed 0 of 3 changes"));
        assertThat(UiTestSupport.onFx(bar::getProgress)).isEqualTo(0.0);
        String[] shown = {""};
        try {
            waitUntil("finished", () -> (shown[0] = text(robot, "#status-course_sync")).startsWith("Up to date"));
        } catch (AssertionError e) {
            throw new AssertionError(
                    e.getMessage() + "; the card said '" + shown[0] + "' (" + text(robot, "#detail-course_sync") + ")",
                    e);
        }
        assertThat(UiTestSupport.onFx(row::isVisible)).isFalse();
        assertThat(seen).contains("bar 0.0", "bar 1.0", "text Pushed 0 of 3 changes", "text Pushed 3 of 3 changes");
        assertThat(seen.indexOf("text Pushed 0 of 3 changes")).isLessThan(seen.indexOf("text Pushed 3 of 3 changes"));
        assertThat(backend.runtime().edits().pendingCount(ALICE_COURSES)).isZero();
    }
}
