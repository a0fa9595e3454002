package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import org.leasesync.run.RetryPolicy;
import org.leasesync.lease.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;
import org.leasesync.desktop.Backend;

/** Shared set-up for the TestFX tests: the real app on a temp data directory with the embedded server. */
final class UiTestSupport {

    private UiTestSupport() {
    }

    static Backend.AppSettings settings(Path dataDir, Duration scheduleInterval, TimeSource time) {
        return new Backend.AppSettings(dataDir, Optional.empty(), Optional.empty(), Optional.empty(),
                Duration.ofSeconds(60), new HttpSettings(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(20)),
                scheduleInterval, Duration.ofMinutes(1), RetryPolicy.NONE, time);
    }

    static void waitUntil(String what, BooleanSupplier condition) {
        try {
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, condition::getAsBoolean);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting until " + what);
        }
    }

    static String text(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(Label.class).getText();
    }

    /**
     * Selects the main window's tab with id {@code id} (a Tab is not a node, so it is found through its
     * pane; no lookup by its text, which changes with the language).
     */
    static void selectTab(FxRobot robot, String id) {
        robot.interact(() -> {
            javafx.scene.control.TabPane tabs = robot.lookup(".tab-pane").queryAs(javafx.scene.control.TabPane.class);
            tabs.getSelectionModel().select(tabs.getTabs().stream().filter(t -> id.equals(t.getId())).findFirst()
                    .orElseThrow(() -> new AssertionError("no tab " + id)));
        });
    }
}
