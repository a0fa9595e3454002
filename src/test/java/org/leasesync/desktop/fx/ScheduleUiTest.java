package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.TaskKey;
import org.leasesync.lease.TimeSource;
import org.leasesync.run.TaskSource;
import org.leasesync.testing.FxTest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The timer trigger with a short interval. */
@ExtendWith(ApplicationExtension.class)
@FxTest
class ScheduleUiTest {

    @TempDir
    Path tmp;

    Backend backend;
    AppAssembly assembly;

    @RegisterExtension
    final AppWindow window = new AppWindow();

    @Start
    void start(Stage stage) {
        var settings = UiTestSupport.settings(tmp.resolve("data"), Duration.ofSeconds(1), TimeSource.system());
        assembly = window.open(stage, settings);
        backend = window.backend();
    }

    @Test
    void shortTimerIntervalFiresAScheduleRun(FxRobot robot) {
        TaskKey key = TaskKey.of("alice", "message_sync");
        waitUntil(
                "a schedule run",
                () -> backend.runtime().store().history().history(key, 50).stream()
                        .anyMatch(r -> r.firstSource() == TaskSource.SCHEDULE
                                || r.mergedSources().contains(TaskSource.SCHEDULE)));
        assertThat(backend.embeddedServer().orElseThrow().stats().runOverlaps()).isZero();
    }
}
