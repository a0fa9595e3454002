package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import com.sun.javafx.stage.WindowHelper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.KeyStatus;
import org.leasesync.lease.Scope;
import org.leasesync.lease.TaskKey;
import org.leasesync.run.RunRecord;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** Pause from the window: skipped triggers, Sync now while paused, persisted across a restart, ending by itself. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class PauseUiTest {

    static final TaskKey COURSES = TaskKey.of("alice", "course_sync");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime(); // 2026-11-30T10:00:00Z, 10:00 in London
    Stage stage;
    BackgroundFixture f;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    void open(FxRobot robot, Duration scheduleInterval) {
        robot.interact(() -> {
            f = new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), scheduleInterval, time),
                    time,
                    true,
                    tmp.resolve("config"),
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            f.assembly.show();
        });
        robot.clickOn("#sync-all");
        for (Scope s : Scope.values()) {
            waitUntil(
                    "card " + s + " settled",
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
    }

    List<RunRecord> history(TaskKey key) {
        return f.backend.runtime().store().history().history(key, 100);
    }

    void pauseFromTheWindow(FxRobot robot, String option) {
        robot.clickOn("#pause-menu");
        robot.clickOn("#pause-" + option);
    }

    @Test
    void pausedCardsSkipTheForegroundTriggerButSyncNowRunsAndSaysSyncIsPaused(FxRobot robot) {
        open(robot, Duration.ofHours(1));
        pauseFromTheWindow(robot, "ONE_HOUR");
        for (Scope s : Scope.values()) {
            waitUntil(
                    "paused shown", () -> text(robot, "#status-" + s.wireName()).equals("Paused until 11:00"));
        }
        assertThat(text(robot, "#pause-status")).isEqualTo("Paused until 11:00");
        assertThat(robot.lookup("#resume").queryButton().isVisible()).isTrue();
        assertThat(robot.lookup("#pause-menu").query().isVisible()).isFalse();
        assertThat(f.vm().card(Scope.COURSE_SYNC).kindProperty().get()).isEqualTo(KeyStatus.Kind.PAUSED);
        assertThat(text(robot, "#detail-course_sync"))
                .startsWith("Last synced 10:00:00. Timer and window syncs are skipped");

        // coming back to the window, two minutes later (due by the minimum interval): skipped and recorded on the card
        time.elapse(Duration.ofMinutes(2));
        int before = history(COURSES).size();
        f.backend.embeddedServer().orElseThrow().resetStats();
        robot.interact(() -> {
            WindowHelper.setFocused(stage, false);
            WindowHelper.setFocused(stage, true);
        });
        waitUntil("skip shown", () -> text(robot, "#detail-course_sync").contains("skipped: foreground sync at 10:02"));
        assertThat(history(COURSES)).hasSize(before);
        assertThat(f.backend.embeddedServer().get().stats().requests()).isZero();

        // Sync now still runs, and the running card says sync is paused
        f.backend.embeddedServer().get().faults().setLatency(Duration.ofMillis(1500));
        robot.clickOn("#sync-course_sync");
        waitUntil("running", () -> text(robot, "#status-course_sync").startsWith("Syncing"));
        assertThat(text(robot, "#detail-course_sync"))
                .contains("Sync is paused (Paused until 11:00); this sync runs because you asked for it.");
        waitUntil(
                "paused again after the run",
                () -> text(robot, "#status-course_sync").equals("Paused until 11:00"));
        assertThat(history(COURSES)).hasSize(before + 1);
        assertThat(history(COURSES).get(0).firstSource()).isEqualTo(TaskSource.MANUAL);
        assertThat(history(COURSES).get(0).status()).contains(org.leasesync.run.RunStatus.SUCCEEDED);
    }

    @Test
    void theTimerIsSkippedWhilePausedAndRunsAgainAfterResume(FxRobot robot) {
        open(robot, Duration.ofSeconds(1));
        pauseFromTheWindow(robot, "UNTIL_RESUMED");
        waitUntil("paused", () -> text(robot, "#status-message_sync").equals("Paused until you resume"));
        waitUntil(
                "a timer skip shown",
                () -> text(robot, "#detail-message_sync").contains("skipped: schedule sync at 10:00"));
        TaskKey messages = TaskKey.of("alice", "message_sync");
        int before = history(messages).size();
        robot.sleep(2500); // two or three timer ticks
        assertThat(history(messages)).hasSize(before);

        time.elapse(Duration.ofSeconds(5)); // past the "synced moments ago" share of the interval (RecentSyncGate)
        robot.clickOn("#resume");
        waitUntil("not paused", () -> !text(robot, "#status-message_sync").startsWith("Paused"));
        waitUntil(
                "a schedule run after resuming",
                () -> history(messages).size() > before
                        && history(messages).get(0).firstSource() == TaskSource.SCHEDULE);
        assertThat(text(robot, "#detail-message_sync")).doesNotContain("skipped");
        assertThat(f.backend.embeddedServer().orElseThrow().stats().runOverlaps())
                .isZero();
    }

    @Test
    void aPauseSurvivesARestartAndEndsByItself(FxRobot robot) throws Exception {
        open(robot, Duration.ofHours(1));
        pauseFromTheWindow(robot, "ONE_HOUR");
        waitUntil("paused", () -> text(robot, "#status-backup").equals("Paused until 11:00"));
        Path settings = tmp.resolve("data/settings.json");
        waitUntil(
                "saved",
                () -> Files.exists(settings) && read(settings).contains("\"until\" : \"2026-11-30T11:00:00Z\""));

        close(robot);
        time.elapse(Duration.ofMinutes(30));
        open2(robot);
        for (Scope s : Scope.values()) {
            waitUntil(
                    "still paused after the restart",
                    () -> text(robot, "#status-" + s.wireName()).equals("Paused until 11:00"));
        }
        time.elapse(Duration.ofMinutes(31)); // 11:01
        for (Scope s : Scope.values()) {
            waitUntil(
                    "the pause ended by itself",
                    () -> text(robot, "#status-" + s.wireName()).startsWith("Up to date"));
        }
        assertThat(robot.lookup("#pause-menu").query().isVisible()).isTrue();
        waitUntil("the file says so", () -> read(settings).contains("\"pause\" : null"));
    }

    /** Opens again on the same data directory, without waiting for "Up to date" (the cards are paused). */
    void open2(FxRobot robot) {
        AtomicReference<BackgroundFixture> ref = new AtomicReference<>();
        robot.interact(() -> {
            ref.set(new BackgroundFixture(
                    stage,
                    BackgroundFixture.settings(tmp.resolve("data"), Duration.ofHours(1), time),
                    time,
                    true,
                    tmp.resolve("config"),
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX));
            ref.get().assembly.show();
        });
        f = ref.get();
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
