package org.leasesync.desktop.fx;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import org.leasesync.desktop.Backend;
import org.leasesync.lease.TimeSource;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** Shared set-up for the TestFX tests: the real app on a temp data directory with the embedded server. */
final class UiTestSupport {

    private UiTestSupport() {}

    static Backend.AppSettings settings(Path dataDir, Duration scheduleInterval, TimeSource time) {
        return org.leasesync.testing.TestAppSettings.of(dataDir, scheduleInterval, time);
    }

    static void waitUntil(String what, BooleanSupplier condition) {
        try {
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, condition::getAsBoolean);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting until " + what);
        }
    }

    /**
     * The text of the label {@code id}, read on the FX thread: the view sets a card's properties one
     * after another in one FX event, so a read from the test thread could see the new headline with
     * the old progress row; after a read on the FX thread, the whole event that set the text is visible.
     */
    static String text(FxRobot robot, String id) {
        Label label = robot.lookup(id).queryAs(Label.class);
        return onFx(label::getText);
    }

    /** {@code read} run on the FX thread (at once when called there), its result returned; blocks until then. */
    static <T> T onFx(java.util.concurrent.Callable<T> read) {
        if (javafx.application.Platform.isFxApplicationThread()) {
            try {
                return read.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        try {
            return WaitForAsyncUtils.asyncFx(read).get(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted reading on the FX thread", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("reading on the FX thread failed", e);
        }
    }

    /**
     * Selects the main window's tab with id {@code id} (a Tab is not a node, so it is found through its
     * pane; no lookup by its text, which changes with the language).
     */
    static void selectTab(FxRobot robot, String id) {
        robot.interact(() -> {
            javafx.scene.control.TabPane tabs = robot.lookup(".tab-pane").queryAs(javafx.scene.control.TabPane.class);
            tabs.getSelectionModel()
                    .select(tabs.getTabs().stream()
                            .filter(t -> id.equals(t.getId()))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("no tab " + id)));
        });
    }
}
