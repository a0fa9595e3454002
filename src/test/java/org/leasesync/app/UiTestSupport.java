package org.leasesync.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import org.leasesync.registry.RetryPolicy;
import org.leasesync.registry.TimeSource;
import org.leasesync.remote.HttpSettings;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

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
}
