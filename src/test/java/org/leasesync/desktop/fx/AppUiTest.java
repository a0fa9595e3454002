package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import com.sun.javafx.stage.WindowHelper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javafx.scene.control.ComboBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.StatusTexts;
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

/** The real window (headless Monocle in CI), the real coordinator, the embedded reference server. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class AppUiTest {

    static final TaskKey ALICE_COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime();
    Backend backend;
    AppAssembly assembly;
    ReferenceServer server;
    Stage stage;

    @RegisterExtension
    final AppWindow window = new AppWindow();

    @Start
    void start(Stage stage) {
        this.stage = stage;
        var settings = UiTestSupport.settings(tmp.resolve("data"), Duration.ofHours(1), time);
        assembly = window.open(stage, settings);
        backend = window.backend();
        server = backend.embeddedServer().orElseThrow();
    }

    /** Waits for the start-up state (including a foreground sync on opening) to settle, then zeroes the server's stats. */
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
        server.resetStats();
    }

    List<RunRecord> history(TaskKey key) {
        return backend.runtime().store().history().history(key, 100);
    }

    @Test
    void clickingSyncNowShowsRunningThenUpToDateAndTheServerSeesOneRun(FxRobot robot) {
        settle(robot);
        // the cards' scroll pane keeps no image of its viewport (RenderMemory)
        assertThat(robot.lookup(".viewport").queryAll()).isNotEmpty().allMatch(n -> !((javafx.scene.Node) n).isCache());
        int before = history(ALICE_COURSES).size();
        server.faults().setLatency(Duration.ofMillis(400));
        robot.clickOn("#sync-course_sync");
        waitUntil("running shown", () -> text(robot, "#status-course_sync").startsWith("Syncing · "));
        assertThat(text(robot, "#status-course_sync"))
                .matches("Syncing · (pulling|pushing|done) · started \\d\\d:\\d\\d:\\d\\d \\(manual\\)");
        waitUntil("up to date", () -> text(robot, "#status-course_sync").startsWith("Up to date · "));
        // right after a sync (the test's clock has not moved) the card says it just ran, not only the time
        assertThat(text(robot, "#status-course_sync"))
                .matches("Up to date · synced just now \\(\\d\\d:\\d\\d:\\d\\d\\)");
        time.elapse(StatusTexts.JUST_NOW);
        robot.interact(
                () -> assembly.viewModel().setOverlay(assembly.viewModel().overlay()));
        assertThat(text(robot, "#status-course_sync")).matches("Up to date · last synced \\d\\d:\\d\\d:\\d\\d");
        assertThat(history(ALICE_COURSES)).hasSize(before + 1);
        assertThat(history(ALICE_COURSES).get(0).firstSource()).isEqualTo(TaskSource.MANUAL);
        assertThat(server.stats().requests()).isEqualTo(1); // one pull, nothing to push
        assertThat(server.stats().runOverlaps()).isZero();
    }

    @Test
    void secondQuickClickJoinsTheRunningSyncAndOnlyOneRunReachesTheServer(FxRobot robot) {
        settle(robot);
        int before = history(ALICE_COURSES).size();
        server.faults().setLatency(Duration.ofMillis(1500));
        robot.clickOn("#sync-course_sync");
        waitUntil("running", () -> text(robot, "#status-course_sync").startsWith("Syncing"));
        robot.clickOn("#sync-course_sync");
        waitUntil("joined shown", () -> text(robot, "#detail-course_sync").contains("your request joined it"));
        assertThat(text(robot, "#detail-course_sync"))
                .matches("Already syncing — started \\d\\d:\\d\\d:\\d\\d by manual; your request joined it.*");
        waitUntil("up to date", () -> text(robot, "#status-course_sync").startsWith("Up to date"));
        List<RunRecord> runs = history(ALICE_COURSES);
        assertThat(runs).hasSize(before + 1);
        assertThat(runs.get(0).mergedSources()).containsExactly(TaskSource.MANUAL);
        assertThat(server.stats().requests()).isEqualTo(1);
    }

    @Test
    void focusLostThenGainedStartsAForegroundRunButNotAgainWithinTheMinimumInterval(FxRobot robot) {
        settle(robot);
        time.elapse(Duration.ofMinutes(2)); // every key's last success is now older than the minimum interval
        int before = history(ALICE_COURSES).size();
        robot.interact(() -> {
            WindowHelper.setFocused(stage, false);
            WindowHelper.setFocused(stage, true);
        });
        waitUntil(
                "foreground run recorded",
                () -> history(ALICE_COURSES).size() == before + 1
                        && history(ALICE_COURSES).get(0).status().orElseThrow() == RunStatus.SUCCEEDED);
        assertThat(history(ALICE_COURSES).get(0).firstSource()).isEqualTo(TaskSource.FOREGROUND);
        settle(robot);
        time.elapse(Duration.ofSeconds(5)); // past the debounce, inside the 1 min minimum interval
        robot.interact(() -> {
            WindowHelper.setFocused(stage, false);
            WindowHelper.setFocused(stage, true);
        });
        robot.sleep(700);
        assertThat(history(ALICE_COURSES)).hasSize(before + 1);
        assertThat(server.stats().requests()).isZero();
    }

    @Test
    void focusComingBackFromTheAppsOwnQaWindowStartsNoSync(FxRobot robot) {
        settle(robot);
        time.elapse(Duration.ofMinutes(2));
        int before = history(ALICE_COURSES).size();
        robot.clickOn("#qa-open");
        waitUntil("QA window shown", () -> Window.getWindows().size() > 1);
        robot.interact(() -> {
            WindowHelper.setFocused(stage, false);
            Window qa = Window.getWindows().stream()
                    .filter(w -> w != stage)
                    .findFirst()
                    .orElseThrow();
            WindowHelper.setFocused(qa, true);
            qa.hide();
            WindowHelper.setFocused(stage, true);
        });
        robot.sleep(700);
        assertThat(history(ALICE_COURSES)).hasSize(before);
        assertThat(server.stats().requests()).isZero();
    }

    @Test
    void serverFaultShowsLastSyncFailedWithRetryAndRetrySucceeds(FxRobot robot) {
        settle(robot);
        server.faults().set(new FaultSettings(0, 0, 0, 0, 1)); // next request: 429
        robot.clickOn("#sync-course_sync");
        waitUntil("failed shown", () -> text(robot, "#status-course_sync").startsWith("Last sync failed"));
        assertThat(text(robot, "#status-course_sync"))
                .startsWith("Last sync failed: the sync server is busy (HTTP 429)")
                .endsWith("— Retry")
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
        assertThat(robot.lookup("#retry-course_sync").queryButton().isVisible()).isTrue();
        robot.clickOn("#retry-course_sync");
        waitUntil(
                "up to date after retry",
                () -> text(robot, "#status-course_sync").startsWith("Up to date"));
        assertThat(history(ALICE_COURSES).get(0).firstSource()).isEqualTo(TaskSource.RETRY);
        assertThat(robot.lookup("#retry-course_sync").queryButton().isVisible()).isFalse();
    }

    @Test
    void switchingAccountDuringARunNeverShowsTheOldRunsResultInTheNewAccount(FxRobot robot) {
        settle(robot);
        server.faults().setLatency(Duration.ofMillis(1500));
        robot.clickOn("#sync-course_sync");
        waitUntil("alice running", () -> text(robot, "#status-course_sync").startsWith("Syncing"));
        List<String> usersShown = new CopyOnWriteArrayList<>();
        ScopeCardModel card = assembly.viewModel().card(Scope.COURSE_SYNC);
        robot.interact(() -> card.headlineProperty().addListener((o, a, b) -> {
            if (card.status() != null) {
                usersShown.add(card.status().key().userId());
            }
        }));
        robot.interact(() -> robot.lookup("#account")
                .queryAs(ComboBox.class)
                .getSelectionModel()
                .select("bob"));
        waitUntil(
                "alice's run ended",
                () -> history(ALICE_COURSES).get(0).status().orElseThrow() != RunStatus.RUNNING);
        robot.sleep(2500); // a status refresh has passed
        assertThat(history(ALICE_COURSES).get(0).status()).contains(RunStatus.CANCELLED);
        assertThat(history(ALICE_COURSES).get(0).error().orElseThrow()).contains("account switched to bob");
        assertThat(usersShown).isNotEmpty().allMatch("bob"::equals);
        assertThat(assembly.viewModel().currentUser()).isEqualTo("bob");
        assertThat(card.status().key().userId()).isEqualTo("bob");
    }

    @Test
    void firingAllTriggersFiftyTimesNeverOverlapsRunsOnTheServer(FxRobot robot) {
        settle(robot);
        server.faults().setLatency(Duration.ofMillis(20));
        robot.clickOn("#qa-open");
        waitUntil("QA window", () -> robot.lookup("#qa-fire").tryQuery().isPresent());
        robot.clickOn("#qa-fire");
        waitUntil("fired", () -> text(robot, "#qa-fire-result").startsWith("Fired 450 triggers"));
        waitUntil(
                "no local runs",
                () -> backend.runtime().coordinator().localRuns().isEmpty());
        assertThat(server.stats().runOverlaps()).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Fired 450 triggers: (\\d+) started a run, (\\d+) "
                        + "joined a running one(?:, (\\d+) skipped \\(the key had just synced\\))?\\.")
                .matcher(text(robot, "#qa-fire-result"));
        assertThat(m.matches()).as(text(robot, "#qa-fire-result")).isTrue();
        assertThat(Integer.parseInt(m.group(1))
                        + Integer.parseInt(m.group(2))
                        + (m.group(3) == null ? 0 : Integer.parseInt(m.group(3))))
                .as("every trigger counted once")
                .isEqualTo(450);
        for (Scope s : Scope.values()) {
            List<RunRecord> runs = history(new TaskKey("alice", s));
            for (int i = 1; i < runs.size(); i++) { // runs of one key never overlap in time
                RunRecord newer = runs.get(i - 1);
                RunRecord older = runs.get(i);
                assertThat(newer.epoch()).isGreaterThan(older.epoch());
            }
        }
    }
}
